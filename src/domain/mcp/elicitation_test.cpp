#include "domain/mcp/elicitation.hpp"
#include "domain/json_text.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate::mcp {
namespace {

namespace json = boost::json;

json::object Params(std::string_view meta_capabilities) {
  return json::parse(R"({"name":"helper","_meta":{"io.modelcontextprotocol/clientCapabilities":)" +
                     std::string(meta_capabilities) + "}}")
      .as_object();
}

// A need as a paused answer's pending_actions show it.
json::value Need(std::string call_id, std::string kind, std::string tool, std::string arguments,
                 std::string question = "", std::string schema = "null") {
  json::object need{
      {"call_id", call_id}, {"kind", kind}, {"tool", tool}, {"arguments", json::parse(arguments)}};
  if (kind == "question") {
    need["question"] = question;
    need["answer_schema"] = json::parse(schema);
  }
  return need;
}

TEST(McpElicitation, AClientTakesFormsWhenItDeclaresThem) {
  EXPECT_TRUE(AcceptsFormElicitation(Params(R"({"elicitation":{}})")));
  EXPECT_TRUE(AcceptsFormElicitation(Params(R"({"elicitation":{"form":{},"url":{}}})")));
  EXPECT_FALSE(AcceptsFormElicitation(Params(R"({"elicitation":{"url":{}}})")));
  EXPECT_FALSE(AcceptsFormElicitation(Params(R"({"sampling":{}})")));
  EXPECT_FALSE(AcceptsFormElicitation(json::parse(R"({"name":"helper"})").as_object()));
}

TEST(McpElicitation, EachPendingCallIsOneFormShapedByWhatItNeeds) {
  const json::array pending = {
      Need("call_1", "approval", "refund", R"({"amount":40})"),
      Need("call_2", "question", "ask_user", R"({"question":"Which plan?"})", "Which plan?"),
      Need("call_3", "question", "ask_user", "{}", "Ship where?",
           R"({"type":"object","properties":{
               "city":{"type":"string","pattern":"^[A-Z]"},"express":{"type":"boolean"}},
               "required":["city"]})"),
      Need("call_4", "question", "ask_user", "{}", "How many?",
           R"({"type":"object","properties":{"count":{"type":"integer","minimum":1}}})"),
      Need(
          "call_5", "question", "ask_user", "{}", "Which items?",
          R"({"type":"object","properties":{"items":{"type":"array","items":{"type":"string"}}}})"),
  };
  const auto e = ElicitationOf("support", pending);
  ASSERT_EQ(e.needs.size(), 5u);
  EXPECT_EQ(e.needs[0], (ElicitedNeed{"call_1", FormShape::kApproval}));
  EXPECT_EQ(e.needs[1].shape, FormShape::kAnswerField);
  EXPECT_EQ(e.needs[2].shape, FormShape::kWholeAnswer);
  EXPECT_EQ(e.needs[3].shape, FormShape::kWholeAnswer);
  EXPECT_EQ(e.needs[4].shape, FormShape::kJsonAnswerField);

  const auto& approval = e.input_requests.at("call_1").as_object();
  EXPECT_EQ(approval.at("method"), "elicitation/create");
  const auto& params = approval.at("params").as_object();
  EXPECT_EQ(params.at("mode"), "form");
  const std::string message(params.at("message").as_string());
  EXPECT_NE(message.find("support"), std::string::npos);
  EXPECT_NE(message.find("refund"), std::string::npos);
  EXPECT_NE(message.find(R"({"amount":40})"), std::string::npos);
  EXPECT_EQ(params.at("requestedSchema").at("properties").at("approve").at("type"), "boolean");
  EXPECT_EQ(params.at("requestedSchema").at("required"), json::array{"approve"});

  // A flat object schema is the form, with only the keywords forms know.
  const auto& ship = e.input_requests.at("call_3").at("params").as_object();
  EXPECT_EQ(ship.at("message"), "Ship where?");
  const auto& city = ship.at("requestedSchema").at("properties").at("city").as_object();
  EXPECT_EQ(city.at("type"), "string");
  EXPECT_FALSE(city.contains("pattern"));
  EXPECT_EQ(ship.at("requestedSchema").at("required"), json::array{"city"});
  const auto& many = e.input_requests.at("call_4").at("params").at("requestedSchema");
  EXPECT_EQ(many.at("properties").at("count").at("minimum"), 1);
  // No schema: any text in an `answer` field; a schema no form holds: JSON text in it.
  const auto& plan = e.input_requests.at("call_2").at("params").at("requestedSchema");
  EXPECT_EQ(plan.at("properties").at("answer").at("type"), "string");
  const auto& items = e.input_requests.at("call_5").at("params").at("requestedSchema");
  EXPECT_EQ(items.at("properties").at("answer").at("type"), "string");
}

TEST(McpElicitation, AToolServersFlatFormIsPassedOnAsItIs) {
  const json::value form = json::parse(
      R"({"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]})");
  const json::array pending = {Need("call_9", "question", "docs__refund", R"({"order_id":"A-1"})",
                                    "Refund order A-1?", json_text::Write(form))};
  const auto e = ElicitationOf("shop", pending);
  ASSERT_EQ(e.needs.size(), 1u);
  EXPECT_EQ(e.needs[0], (ElicitedNeed{"call_9", FormShape::kWholeAnswer}));
  const auto& params = e.input_requests.at("call_9").at("params");
  EXPECT_EQ(params.at("message"), "Refund order A-1?");
  EXPECT_EQ(params.at("requestedSchema"), form);
}

TEST(McpElicitation, ResponsesBecomeDecisionsAnswersAndDeclines) {
  const std::vector<ElicitedNeed> needs = {{"a", FormShape::kApproval},
                                           {"b", FormShape::kApproval},
                                           {"c", FormShape::kWholeAnswer},
                                           {"d", FormShape::kJsonAnswerField},
                                           {"e", FormShape::kAnswerField}};
  const json::value responses = json::parse(R"({
    "a": {"action": "accept", "content": {"approve": true}},
    "b": {"action": "accept", "content": {"approve": false, "reason": "too much"}},
    "c": {"action": "accept", "content": {"city": "Oslo"}},
    "d": {"action": "accept", "content": {"answer": "[\"x\",\"y\"]"}},
    "e": {"action": "decline"}})");
  auto read = ReadInputResponses(&responses, needs);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->decisions.size(), 2u);
  EXPECT_TRUE(read->decisions[0].approve);
  EXPECT_FALSE(read->decisions[1].approve);
  EXPECT_EQ(read->decisions[1].reason, "too much");
  ASSERT_EQ(read->answered.size(), 2u);
  EXPECT_EQ(read->answered[0].second, json::parse(R"({"city":"Oslo"})"));
  EXPECT_EQ(read->answered[1].second, json::parse(R"(["x","y"])"));
  ASSERT_EQ(read->declined.size(), 1u);
  EXPECT_EQ(read->declined[0].first, "e");
  EXPECT_TRUE(read->Approves());

  // A declined or canceled approval is a denial the model is told of.
  const json::value canceled = json::parse(R"({"a":{"action":"cancel"},"b":{"action":"decline"},
    "c":{"action":"cancel"},"d":{"action":"decline"},"e":{"action":"accept","content":{"answer":"ok"}}})");
  auto denied = ReadInputResponses(&canceled, needs);
  ASSERT_TRUE(denied) << denied.error().message;
  EXPECT_FALSE(denied->decisions[0].approve);
  EXPECT_NE(denied->decisions[0].reason.find("canceled"), std::string::npos);
  EXPECT_NE(denied->decisions[1].reason.find("declined"), std::string::npos);
  EXPECT_EQ(denied->declined.size(), 2u);
  EXPECT_EQ(denied->answered[0].second, "ok");
}

TEST(McpElicitation, BadResponsesAreRefusedNamingTheField) {
  const std::vector<ElicitedNeed> needs = {{"a", FormShape::kApproval},
                                           {"d", FormShape::kJsonAnswerField}};
  const auto field = [&](std::string_view text) {
    const json::value v = json::parse(text);
    auto read = ReadInputResponses(&v, needs);
    return read ? std::string("accepted") : std::string(read.error().field().value_or(""));
  };
  const std::string ok_d = R"("d":{"action":"accept","content":{"answer":"1"}})";
  EXPECT_EQ(field(R"({"a":{"action":"accept","content":{"approve":true}},)" + ok_d + "}"),
            "accepted");
  EXPECT_EQ(field("{" + ok_d + "}"), R"(params.inputResponses["a"])");
  EXPECT_EQ(field(R"({"a":{"action":"maybe"},)" + ok_d + "}"),
            R"(params.inputResponses["a"].action)");
  EXPECT_EQ(field(R"({"a":{"action":"accept"},)" + ok_d + "}"),
            R"(params.inputResponses["a"].content)");
  EXPECT_EQ(field(R"({"a":{"action":"accept","content":{"approve":"yes"}},)" + ok_d + "}"),
            R"(params.inputResponses["a"].content.approve)");
  EXPECT_EQ(field(R"({"a":{"action":"decline"},"d":{"action":"accept","content":{"answer":"{"}}})"),
            R"(params.inputResponses["d"].content.answer)");
  EXPECT_EQ(
      field(R"({"a":{"action":"decline"},"d":{"action":"decline"},"z":{"action":"decline"}})"),
      R"(params.inputResponses["z"])");
  EXPECT_FALSE(ReadInputResponses(nullptr, needs));
}

TEST(McpElicitation, NeedsRoundTripThroughTheRequestState) {
  const std::vector<ElicitedNeed> needs = {{"a", FormShape::kApproval},
                                           {"b", FormShape::kWholeAnswer},
                                           {"c", FormShape::kAnswerField},
                                           {"d", FormShape::kJsonAnswerField}};
  auto back = ParseNeeds(NeedsJson(needs));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, needs);
  EXPECT_FALSE(ParseNeeds(json::parse(R"([["a","other"]])")));
  EXPECT_FALSE(ParseNeeds(json::parse(R"({"a":1})")));
}

}  // namespace
}  // namespace agentgate::mcp
