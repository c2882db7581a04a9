#include "domain/a2a/agent_card.hpp"
#include "domain/a2a/legacy.hpp"
#include "domain/a2a/list_tasks.hpp"
#include "domain/a2a/protocol.hpp"
#include "domain/a2a/push_config.hpp"
#include "domain/a2a/remote_agent.hpp"
#include "domain/a2a/send_message.hpp"
#include "domain/a2a/task.hpp"
#include "domain/a2a/task_answer.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentgate::a2a {
namespace {

namespace json = boost::json;

json::object Parse(std::string_view text) {
  return json::parse(text).as_object();
}

ProtocolError Refusal(std::string_view params) {
  auto read = ReadSendMessage(json::parse(params));
  EXPECT_TRUE(std::holds_alternative<ProtocolError>(read)) << params;
  return std::holds_alternative<ProtocolError>(read) ? std::get<ProtocolError>(read)
                                                     : ProtocolError{};
}

TEST(A2aSendMessage, ReadsTextAndDataPartsAndTheDelivery) {
  auto read = ReadSendMessage(json::parse(R"({"message": {"messageId": "m-1", "role": "ROLE_USER",
      "contextId": "conv_1", "taskId": "", "parts": [{"text": "Hello"}, {"data": {"order": "A-1"}}]},
      "configuration": {"returnImmediately": true, "historyLength": 2, "acceptedOutputModes": []}})"));
  ASSERT_TRUE(std::holds_alternative<SentMessage>(read));
  const auto& sent = std::get<SentMessage>(read);
  EXPECT_EQ(sent.message_id, "m-1");
  EXPECT_EQ(sent.text, "Hello\n\n{\"order\":\"A-1\"}");
  EXPECT_EQ(sent.context_id, "conv_1");
  EXPECT_FALSE(sent.task_id);  // proto3's empty string is none
  EXPECT_TRUE(sent.return_immediately);
  EXPECT_EQ(sent.history_length, 2);
  EXPECT_EQ(MessageKey("bot", sent.message_id), "a2a:bot:m-1");
}

TEST(A2aSendMessage, RefusalsNameTheFieldAndTheProtocolsError) {
  EXPECT_EQ(Refusal(R"({})").field, "message");
  EXPECT_EQ(Refusal(R"({"message": {"role": "ROLE_USER", "parts": [{"text": "x"}]}})").field,
            "message.messageId");
  EXPECT_EQ(Refusal(R"({"message": {"messageId": "has space", "parts": [{"text": "x"}]}})").field,
            "message.messageId");
  EXPECT_EQ(
      Refusal(R"({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}]}})")
          .field,
      "message.role");
  EXPECT_EQ(Refusal(R"({"message": {"messageId": "m", "parts": []}})").field, "message.parts");
  EXPECT_EQ(Refusal(R"({"message": {"messageId": "m", "parts": [{"text": 3}]}})").field,
            "message.parts[0].text");
  EXPECT_EQ(Refusal(R"({"message": {"messageId": "m", "parts": [{"metadata": {}}]}})").field,
            "message.parts[0]");
  const auto file = Refusal(R"({"message": {"messageId": "m", "parts": [{"text": "a"},
      {"url": "https://example.com/x.pdf"}]}})");
  EXPECT_EQ(file.fault, Fault::kContentTypeNotSupported);
  EXPECT_EQ(file.field, "message.parts[1]");
  EXPECT_EQ(Refusal(R"({"message": {"messageId": "m", "parts": [{"text": "a"}]},
      "configuration": {"returnImmediately": "yes"}})")
                .field,
            "configuration.returnImmediately");
  // A push config's URL is a webhook's: https, and no private address unless allowed.
  EXPECT_EQ(Refusal(R"({"message": {"messageId": "m", "parts": [{"text": "a"}]},
      "configuration": {"taskPushNotificationConfig": {"url": "http://127.0.0.1:9/"}}})")
                .field,
            "configuration.taskPushNotificationConfig.url");
}

TEST(A2aPushConfig, IsReadWithItsCredentialsAndShownWithout) {
  const auto read = ReadPushConfig(json::parse(R"({"taskId": "run_1", "id": "ops-1",
      "url": "https://hooks.example.com/a2a", "token": "t-1",
      "authentication": {"scheme": "Bearer", "credentials": "s3cret"}})"),
                                   "", false, true);
  ASSERT_TRUE(std::holds_alternative<PushConfigAsked>(read));
  const auto& asked = std::get<PushConfigAsked>(read);
  EXPECT_EQ(asked.task_id, "run_1");
  EXPECT_EQ(asked.id, "ops-1");
  EXPECT_EQ(asked.token, "t-1");
  EXPECT_EQ(asked.scheme, "Bearer");
  EXPECT_EQ(asked.credentials, "s3cret");
  const auto shown = PushConfigJson(asked.task_id, asked.id, asked.url, asked.scheme);
  EXPECT_EQ(json::serialize(shown),
            R"({"taskId":"run_1","id":"ops-1","url":"https://hooks.example.com/a2a",)"
            R"("authentication":{"scheme":"Bearer"}})");
  // 0.3's list of schemes reads as its first; a private URL passes where allowed.
  const auto legacy = ReadPushConfig(json::parse(R"({"url": "http://127.0.0.1:8080/hook",
      "authentication": {"schemes": ["Basic"], "credentials": "dTpw"}})"),
                                     "configuration.taskPushNotificationConfig", true, false);
  ASSERT_TRUE(std::holds_alternative<PushConfigAsked>(legacy));
  EXPECT_EQ(std::get<PushConfigAsked>(legacy).scheme, "Basic");

  const auto field = [](std::string_view text) {
    const auto refused = ReadPushConfig(json::parse(text), "", false, true);
    return std::holds_alternative<ProtocolError>(refused) ? std::get<ProtocolError>(refused).field
                                                          : std::string("(read)");
  };
  EXPECT_EQ(field(R"({"url": "https://h.example.com/"})"), "taskId");
  EXPECT_EQ(field(R"({"taskId": "run_1"})"), "url");
  EXPECT_EQ(field(R"({"taskId": "run_1", "url": "https://10.0.0.1/"})"), "url");
  EXPECT_EQ(field(R"({"taskId": "run_1", "url": "https://h.example.com/", "id": "a b"})"), "id");
  EXPECT_EQ(field(R"({"taskId": "run_1", "url": "https://h.example.com/", "token": "a\r\nX: y"})"),
            "token");
  EXPECT_EQ(field(R"({"taskId": "run_1", "url": "https://h.example.com/",
      "authentication": {"scheme": "Bea rer", "credentials": "x"}})"),
            "authentication.scheme");
  EXPECT_EQ(field(R"({"taskId": "run_1", "url": "https://h.example.com/",
      "authentication": {"scheme": "Bearer", "credentials": "x\ny"}})"),
            "authentication.credentials");
  const auto named = ReadPushConfigName(json::parse(R"({"taskId": "run_1"})"), true);
  ASSERT_TRUE(std::holds_alternative<ProtocolError>(named));
  EXPECT_EQ(std::get<ProtocolError>(named).field, "id");
}

TEST(A2aProtocol, ErrorsAreTheBindingsShapes) {
  const ProtocolError bad{Fault::kInvalidParams, "field 'message.parts': empty", "message.parts"};
  const auto rpc = JsonRpcErrorBody(7, bad);
  EXPECT_EQ(rpc.at("id"), 7);
  EXPECT_EQ(rpc.at("error").at("code"), -32602);
  EXPECT_EQ(rpc.at("error").at("data").at(0).at("reason"), "INVALID_PARAMS");
  EXPECT_EQ(rpc.at("error").at("data").at(1).at("fieldViolations").at(0).at("field"),
            "message.parts");
  const auto rest = RestErrorBody({Fault::kTaskNotFound, "no task"});
  EXPECT_EQ(rest.at("error").at("code"), 404);
  EXPECT_EQ(rest.at("error").at("status"), "NOT_FOUND");
  EXPECT_EQ(rest.at("error").at("details").at(0).at("reason"), "TASK_NOT_FOUND");
  EXPECT_EQ(rest.at("error").at("details").at(0).at("domain"), "a2a-protocol.org");
  EXPECT_EQ(HttpStatusOf(Fault::kVersionNotSupported), 400);
  EXPECT_EQ(JsonRpcCode(Fault::kVersionNotSupported), -32009);
}

TEST(A2aProtocol, TheContractsErrorsReadAsTheProtocols) {
  EXPECT_EQ(FromError(InvalidField("message", "bad")).field, "message");
  EXPECT_EQ(FromError(Error(ErrorCode::kRunNotFound, "x")).fault, Fault::kTaskNotFound);
  EXPECT_EQ(FromError(Error(ErrorCode::kRunEnded, "x")).fault, Fault::kTaskNotCancelable);
  EXPECT_EQ(FromError(Error(ErrorCode::kConversationBusy, "x")).fault,
            Fault::kUnsupportedOperation);
  EXPECT_EQ(FromError(Error(ErrorCode::kIdempotencyKeyReused, "x")).field, "message.messageId");
  const auto internal = FromError(Error(ErrorCode::kUnavailable, "store away"));
  EXPECT_EQ(internal.fault, Fault::kInternal);
  EXPECT_NE(internal.message.find("store away"), std::string::npos);
}

TEST(A2aProtocol, OnlyVersionOneIsServed) {
  EXPECT_FALSE(CheckVersion("1.0"));
  EXPECT_FALSE(CheckVersion("1.0.3"));  // a patch part is not negotiated
  ASSERT_TRUE(CheckVersion(std::nullopt));
  EXPECT_EQ(CheckVersion(std::nullopt)->fault, Fault::kVersionNotSupported);  // none is 0.3
  EXPECT_TRUE(CheckVersion("0.3"));
  EXPECT_TRUE(CheckVersion("1.1"));
  EXPECT_TRUE(CheckVersion("10.0"));
}

std::string StateOf(std::string_view run) {
  return std::string(TaskOfRun(Parse(run)).at("status").at("state").as_string());
}

TEST(A2aTask, RunStatesAreTaskStates) {
  EXPECT_EQ(StateOf(R"({"run_id": "run_1", "status": "queued"})"), "TASK_STATE_SUBMITTED");
  EXPECT_EQ(StateOf(R"({"run_id": "run_1", "status": "running"})"), "TASK_STATE_WORKING");
  EXPECT_EQ(StateOf(R"({"run_id": "run_1", "status": "canceled", "error": {"code": "canceled"}})"),
            "TASK_STATE_CANCELED");
  EXPECT_EQ(
      StateOf(R"({"run_id": "run_1", "status": "failed", "error": {"code": "turn_timeout"}})"),
      "TASK_STATE_FAILED");
  EXPECT_EQ(StateOf(R"({"run_id": "run_1", "status": "completed",
      "result": {"response": "hi", "terminated_reason": null, "blocked": false}})"),
            "TASK_STATE_COMPLETED");
}

TEST(A2aTask, ACompletedTaskCarriesItsReplyAndAStoppedOrBlockedOneFails) {
  const auto done = TaskOfRun(Parse(R"({"run_id": "run_1", "conversation_id": "conv_1",
      "status": "completed", "ended_at": "2026-12-07T10:00:00Z",
      "result": {"response": "{\"a\":1}", "output": {"a": 1}, "terminated_reason": null}})"));
  EXPECT_EQ(done.at("id"), "run_1");
  EXPECT_EQ(done.at("contextId"), "conv_1");
  EXPECT_EQ(done.at("status").at("timestamp"), "2026-12-07T10:00:00Z");
  const auto& parts = done.at("artifacts").at(0).at("parts").as_array();
  EXPECT_EQ(parts.at(0).at("text"), "{\"a\":1}");
  EXPECT_EQ(parts.at(1).at("data").at("a"), 1);  // the parsed answer as data

  const auto stopped = TaskOfRun(Parse(R"({"run_id": "run_1", "status": "completed",
      "result": {"response": "partial", "terminated_reason": "max_iterations"}})"));
  EXPECT_EQ(stopped.at("status").at("state"), "TASK_STATE_FAILED");
  EXPECT_NE(json::serialize(stopped.at("status").at("message")).find("max_iterations"),
            std::string::npos);
  const auto blocked = TaskOfRun(Parse(R"({"run_id": "run_1", "status": "completed",
      "result": {"response": "[withheld]", "blocked": true}})"));
  EXPECT_EQ(blocked.at("status").at("state"), "TASK_STATE_FAILED");
  EXPECT_EQ(blocked.at("artifacts").at(0).at("parts").at(0).at("text"), "[withheld]");
}

TEST(A2aTask, APausedTaskNeedsInputAndSaysWhatAsADataPart) {
  const auto paused = TaskOfRun(Parse(R"({"run_id": "run_1", "status": "requires_action",
      "pending_actions": [{"call_id": "c1", "kind": "approval", "name": "refund"}]})"));
  EXPECT_EQ(paused.at("status").at("state"), "TASK_STATE_INPUT_REQUIRED");
  const auto& parts = paused.at("status").at("message").at("parts").as_array();
  EXPECT_EQ(parts.at(1).at("data").at("pending_actions").at(0).at("call_id"), "c1");
  EXPECT_FALSE(paused.contains("artifacts"));
}

TEST(A2aTask, ARejectedTaskSaysWhy) {
  const auto rejected =
      RejectedTask("run_x", "", Error(ErrorCode::kSpendLimitReached, "limit reached"), 0);
  EXPECT_EQ(rejected.at("status").at("state"), "TASK_STATE_REJECTED");
  EXPECT_FALSE(rejected.contains("contextId"));
  EXPECT_NE(json::serialize(rejected).find("spend_limit_reached"), std::string::npos);
}

std::vector<json::object> Events(TaskEvents& events, std::vector<RunEvent> run) {
  std::vector<json::object> out;
  for (const auto& event : run) events.Add(event, 0, out);
  return out;
}

TEST(A2aTaskEvents, TheTaskThenItsReplyInPiecesThenItsEnd) {
  TaskEvents events("run_1", "conv_1");
  const auto out = Events(events, {run_events::Started("run_1", "conv_1", "bot"),
                                   run_events::ModelStarted(1, "openai", "gpt"),
                                   run_events::TextDelta("Hello, "), run_events::TextDelta("world"),
                                   run_events::Completed(R"({"response": "Hello, world"})")});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].at("task").at("status").at("state"), "TASK_STATE_WORKING");
  EXPECT_EQ(out[1].at("artifactUpdate").at("append"), false);
  EXPECT_EQ(out[2].at("artifactUpdate").at("append"), true);
  EXPECT_EQ(out[2].at("artifactUpdate").at("artifact").at("parts").at(0).at("text"), "world");
  // All of the reply was streamed: the last chunk adds nothing.
  EXPECT_EQ(out[3].at("artifactUpdate").at("append"), true);
  EXPECT_EQ(out[3].at("artifactUpdate").at("lastChunk"), true);
  EXPECT_EQ(out[3].at("artifactUpdate").at("artifact").at("parts").at(0).at("text"), "");
  EXPECT_EQ(out[4].at("statusUpdate").at("status").at("state"), "TASK_STATE_COMPLETED");
  EXPECT_EQ(out[4].at("statusUpdate").at("contextId"), "conv_1");
}

TEST(A2aTaskEvents, ALateBlockReplacesWhatWasStreamedWithThePlaceholder) {
  TaskEvents events("run_1", "conv_1");
  const auto out =
      Events(events, {run_events::TextDelta("card 4111"), run_events::TextRetracted(std::nullopt),
                      run_events::Completed(R"({"response": "[withheld]",
                                       "blocked": true})")});
  ASSERT_EQ(out.size(), 5u);  // the task, the piece, the retraction, the placeholder, the end
  EXPECT_EQ(out[2].at("artifactUpdate").at("append"), false);
  EXPECT_EQ(out[3].at("artifactUpdate").at("append"), false);
  EXPECT_EQ(out[3].at("artifactUpdate").at("artifact").at("parts").at(0).at("text"), "[withheld]");
  EXPECT_EQ(out[4].at("statusUpdate").at("status").at("state"), "TASK_STATE_FAILED");
}

TEST(A2aTaskEvents, APauseAndACancelAreStatusUpdates) {
  TaskEvents paused("run_1", "conv_1");
  auto out = Events(
      paused,
      {run_events::RequiresAction(R"({"response": "", "pending_actions": [{"call_id": "c1"}]})")});
  EXPECT_EQ(out.back().at("statusUpdate").at("status").at("state"), "TASK_STATE_INPUT_REQUIRED");
  TaskEvents canceled("run_2", "conv_1");
  out = Events(canceled, {run_events::Failed(Error(ErrorCode::kCanceled, "canceled"))});
  EXPECT_EQ(out.back().at("statusUpdate").at("status").at("state"), "TASK_STATE_CANCELED");
}

TEST(A2aTaskAnswer, ADataPartIsTheApprovalsBodyAndTextAnswersOnlyALoneQuestion) {
  const auto approval = json::parse(R"([{"call_id": "c1", "kind": "approval"}])").as_array();
  auto read = ReadTaskAnswer(
      json::parse(R"([{"text": "ok"}, {"data": {"decisions": [{"call_id": "c1", "approve": true}],
                       "background": true}}])")
          .as_array(),
      approval);
  ASSERT_TRUE(std::holds_alternative<ApprovalRequest>(read));
  const auto& request = std::get<ApprovalRequest>(read);
  ASSERT_EQ(request.decisions.size(), 1u);
  EXPECT_TRUE(request.decisions[0].approve);
  EXPECT_FALSE(request.background);  // the send says how it is delivered
  // Text never approves a call.
  read = ReadTaskAnswer(json::parse(R"([{"text": "yes, approve it"}])").as_array(), approval);
  ASSERT_TRUE(std::holds_alternative<ProtocolError>(read));
  EXPECT_EQ(std::get<ProtocolError>(read).field, "message.parts");
  // A bad data part names its field inside the part.
  read = ReadTaskAnswer(json::parse(R"([{"data": {"decisions": [{"call_id": "c1"}]}}])").as_array(),
                        approval);
  ASSERT_TRUE(std::holds_alternative<ProtocolError>(read));
  EXPECT_EQ(std::get<ProtocolError>(read).field.rfind("message.parts[0].data.decisions[0]", 0), 0u);
  // A lone question takes the text as its answer; two do not.
  const auto question = json::parse(R"([{"call_id": "q1", "kind": "question"}])").as_array();
  read = ReadTaskAnswer(json::parse(R"([{"text": "A-7"}])").as_array(), question);
  ASSERT_TRUE(std::holds_alternative<ApprovalRequest>(read));
  EXPECT_EQ(std::get<ApprovalRequest>(read).answered.at(0).first, "q1");
  EXPECT_EQ(std::get<ApprovalRequest>(read).answered.at(0).second, "A-7");
  const auto two = json::parse(R"([{"call_id": "q1", "kind": "question"},
                                   {"call_id": "q2", "kind": "question"}])")
                       .as_array();
  EXPECT_TRUE(std::holds_alternative<ProtocolError>(
      ReadTaskAnswer(json::parse(R"([{"text": "A-7"}])").as_array(), two)));
}

TEST(A2aCard, DeclaresBothBindingsAndZeroThreeStreamingAndTheAgentAsASkill) {
  const auto card = AgentCard({"https://gw.example.com/a2a/acme/prod/bot/", "bot", "Bot",
                               "Answers orders", 3, true, "https://gw.example.com/oauth/token",
                               "https://gw.example.com/.well-known/oauth-authorization-server"});
  EXPECT_EQ(card.at("version"), "3");
  const auto& interfaces = card.at("supportedInterfaces").as_array();
  ASSERT_EQ(interfaces.size(), 3u);
  EXPECT_EQ(interfaces[0].at("protocolBinding"), "JSONRPC");
  EXPECT_EQ(interfaces[1].at("protocolBinding"), "HTTP+JSON");
  EXPECT_EQ(interfaces[2].at("protocolVersion"), "0.3");  // JSON-RPC for 0.3's clients
  EXPECT_EQ(interfaces[1].at("url"), "https://gw.example.com/a2a/acme/prod/bot/");
  EXPECT_EQ(card.at("capabilities").at("pushNotifications"), false);  // none kept without a key
  EXPECT_EQ(card.at("skills").at(0).at("id"), "bot");
  EXPECT_EQ(card.at("defaultOutputModes").as_array().size(), 2u);  // structured: JSON too
  const auto& oauth = card.at("securitySchemes").at("agentgateOAuth").at("oauth2SecurityScheme");
  EXPECT_EQ(oauth.at("flows").at("clientCredentials").at("tokenUrl"),
            "https://gw.example.com/oauth/token");
  EXPECT_EQ(
      card.at("securityRequirements").at(1).at("schemes").at("agentgateOAuth").at("list").at(0),
      "a2a");
}

}  // namespace
}  // namespace agentgate::a2a

namespace agentgate::a2a {
namespace {

TEST(A2aCard, TheSignedFormLeavesOutEmptiesAndSignaturesAndSortsKeys) {
  const auto card = boost::json::parse(R"({"name": "b", "description": "", "skills": [],
      "capabilities": {"streaming": false, "extensions": []},
      "securityRequirements": [{"schemes": {"k": {"list": []}}}],
      "signatures": [{"protected": "x", "signature": "y"}], "version": "1"})")
                        .as_object();
  EXPECT_EQ(CanonicalCard(card),
            R"({"capabilities":{"streaming":false},"name":"b","version":"1"})");
}

}  // namespace
}  // namespace agentgate::a2a

namespace agentgate::a2a {
namespace {

TEST(A2aListTasks, ReadsJsonAndQueryTextAndMapsStatesToRunOutcomes) {
  auto read = ReadListTasks(boost::json::parse(R"({"contextId": "conv_1", "status":
      "TASK_STATE_FAILED", "pageSize": "10", "pageToken": "1700000000000.run_ab",
      "statusTimestampAfter": "2026-12-07T10:30:00.5Z", "includeArtifacts": true})"));
  ASSERT_TRUE(std::holds_alternative<TasksAsked>(read));
  const auto& asked = std::get<TasksAsked>(read);
  EXPECT_EQ(asked.context_id, "conv_1");
  EXPECT_EQ(asked.outcomes, ",failed,stopped,");  // a stopped or blocked turn fails its task
  EXPECT_EQ(asked.page_size, 10);
  EXPECT_EQ(asked.after_changed_ms, 1700000000000);
  EXPECT_EQ(asked.after_id, "run_ab");
  EXPECT_EQ(asked.changed_after_ms, 1796639400500);
  EXPECT_TRUE(asked.include_artifacts);
  EXPECT_EQ(PageToken(1700000000000, "run_ab"), "1700000000000.run_ab");
  const auto rejected = ReadListTasks(boost::json::parse(R"({"status": "TASK_STATE_REJECTED"})"));
  EXPECT_TRUE(std::get<TasksAsked>(rejected).none);  // never stored
  const auto defaults = std::get<TasksAsked>(ReadListTasks(boost::json::parse("{}")));
  EXPECT_EQ(defaults.page_size, kDefaultPageSize);
  EXPECT_EQ(defaults.outcomes, "");
}

TEST(A2aListTasks, BadFieldsAreNamed) {
  for (const auto& [params, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"pageSize": 0})", "pageSize"},
           {R"({"pageSize": "101"})", "pageSize"},
           {R"({"status": "done"})", "status"},
           {R"({"pageToken": "x"})", "pageToken"},
           {R"({"pageToken": "12."})", "pageToken"},
           {R"({"historyLength": -1})", "historyLength"},
           {R"({"statusTimestampAfter": "yesterday"})", "statusTimestampAfter"},
           {R"({"includeArtifacts": "yes"})", "includeArtifacts"}}) {
    auto read = ReadListTasks(boost::json::parse(params));
    ASSERT_TRUE(std::holds_alternative<ProtocolError>(read)) << params;
    EXPECT_EQ(std::get<ProtocolError>(read).field, field);
  }
}

TEST(A2aListTasks, UtcTimestampsParseToTheMillisecond) {
  EXPECT_EQ(ParseUtcTimestamp("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseUtcTimestamp("1970-01-02T00:00:01.25Z"), 86'401'250);
  EXPECT_EQ(ParseUtcTimestamp("2024-02-29T12:00:00.123456Z"), 1709208000123);
  EXPECT_FALSE(ParseUtcTimestamp("2023-02-29T12:00:00Z"));  // no such day
  EXPECT_FALSE(ParseUtcTimestamp("2026-12-07 10:30:00Z"));
  EXPECT_FALSE(ParseUtcTimestamp("2026-12-07T10:30:00+01:00"));
  EXPECT_FALSE(ParseUtcTimestamp("2026-12-07T25:30:00Z"));
}

}  // namespace
}  // namespace agentgate::a2a

namespace agentgate::a2a {
namespace {

TEST(A2aLegacy, ZeroThreeNamesAndParamsReadAsOneZero) {
  EXPECT_EQ(legacy::V1Method("message/send"), "SendMessage");
  EXPECT_EQ(legacy::V1Method("tasks/resubscribe"), "SubscribeToTask");
  EXPECT_EQ(legacy::V1Method("tasks/pushNotificationConfig/set"),
            "CreateTaskPushNotificationConfig");
  // A push config's params and results, both ways.
  const auto set =
      legacy::V1Params("CreateTaskPushNotificationConfig", boost::json::parse(R"({"taskId": "run_1",
      "pushNotificationConfig": {"id": "c", "url": "https://h.example.com/"}})"));
  ASSERT_TRUE(std::holds_alternative<boost::json::value>(set));
  EXPECT_EQ(std::get<boost::json::value>(set).at("taskId"), "run_1");
  EXPECT_EQ(std::get<boost::json::value>(set).at("url"), "https://h.example.com/");
  const auto get =
      legacy::V1Params("GetTaskPushNotificationConfig", boost::json::parse(R"({"id": "run_1",
      "pushNotificationConfigId": "c"})"));
  EXPECT_EQ(std::get<boost::json::value>(get).at("taskId"), "run_1");
  EXPECT_EQ(std::get<boost::json::value>(get).at("id"), "c");
  const auto shown = PushConfigJson("run_1", "c", "https://h.example.com/", "Bearer");
  const auto one = legacy::LegacyPushConfigResult("GetTaskPushNotificationConfig", shown);
  EXPECT_EQ(one.at("pushNotificationConfig").at("authentication").at("schemes").at(0), "Bearer");
  const auto all = legacy::LegacyPushConfigResult(
      "ListTaskPushNotificationConfigs",
      boost::json::object{{"configs", boost::json::array{shown}}, {"nextPageToken", ""}});
  ASSERT_TRUE(all.is_array());
  EXPECT_EQ(all.at(0).at("taskId"), "run_1");
  EXPECT_TRUE(
      legacy::LegacyPushConfigResult("DeleteTaskPushNotificationConfig", boost::json::object{})
          .is_null());
  EXPECT_FALSE(legacy::V1Method("SendMessage"));
  auto read = legacy::V1Params("SendMessage", boost::json::parse(R"({"message": {"kind": "message",
      "messageId": "m", "role": "user", "contextId": "conv_1", "parts": [{"kind": "text", "text":
      "hi"}, {"kind": "data", "data": {"a": 1}}, {"kind": "file", "file": {"uri": "https://x/a.pdf",
      "mimeType": "application/pdf"}}]}, "configuration": {"blocking": false}})"));
  ASSERT_TRUE(std::holds_alternative<boost::json::value>(read));
  const auto& params = std::get<boost::json::value>(read);
  EXPECT_EQ(params.at("message").at("role"), "ROLE_USER");
  EXPECT_FALSE(params.at("message").as_object().contains("kind"));
  EXPECT_EQ(params.at("message").at("parts").at(0), boost::json::parse(R"({"text": "hi"})"));
  EXPECT_EQ(params.at("message").at("parts").at(1), boost::json::parse(R"({"data": {"a": 1}})"));
  EXPECT_EQ(params.at("message").at("parts").at(2).at("url"), "https://x/a.pdf");
  EXPECT_EQ(params.at("configuration").at("returnImmediately"), true);
  // A configuration without `blocking` returns at once too (0.3's default); none at all waits.
  read = legacy::V1Params("SendMessage", boost::json::parse(R"({"message": {"messageId": "m",
      "role": "user", "parts": []}, "configuration": {}})"));
  EXPECT_EQ(std::get<boost::json::value>(read).at("configuration").at("returnImmediately"), true);
  read = legacy::V1Params("SendMessage", boost::json::parse(R"({"message": {"messageId": "m",
      "role": "agent", "parts": []}})"));
  EXPECT_EQ(std::get<ProtocolError>(read).field, "message.role");
  // Other methods' params are the same in both.
  read = legacy::V1Params("GetTask", boost::json::parse(R"({"id": "run_1"})"));
  EXPECT_EQ(std::get<boost::json::value>(read).at("id"), "run_1");
}

TEST(A2aLegacy, OneZeroResultsAreWrittenInZeroThreesShapes) {
  const auto task = legacy::LegacyResult(boost::json::parse(R"({"task": {"id": "run_1",
      "contextId": "conv_1", "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {
      "messageId": "s", "role": "ROLE_AGENT", "parts": [{"text": "waits"}, {"data": [1, 2]}]}},
      "artifacts": [{"artifactId": "reply", "parts": [{"text": "hi"}]}]}})"));
  EXPECT_EQ(task.at("kind"), "task");
  EXPECT_EQ(task.at("status").at("state"), "input-required");
  EXPECT_EQ(task.at("status").at("message").at("role"), "agent");
  EXPECT_EQ(task.at("status").at("message").at("kind"), "message");
  const auto& parts = task.at("status").at("message").at("parts");
  EXPECT_EQ(parts.at(0), boost::json::parse(R"({"kind": "text", "text": "waits"})"));
  EXPECT_EQ(parts.at(1).at("data").at("value").at(1), 2);  // not an object: wrapped and marked
  EXPECT_EQ(parts.at(1).at("metadata").at("data_part_compat"), true);
  EXPECT_EQ(task.at("artifacts").at(0).at("parts").at(0).at("kind"), "text");
  const auto update = legacy::LegacyResult(boost::json::parse(R"({"statusUpdate": {"taskId":
      "run_1", "contextId": "conv_1", "status": {"state": "TASK_STATE_COMPLETED"}}})"));
  EXPECT_EQ(update.at("kind"), "status-update");
  EXPECT_EQ(update.at("status").at("state"), "completed");
  EXPECT_EQ(update.at("final"), true);
  const auto working = legacy::LegacyResult(boost::json::parse(R"({"statusUpdate": {"status":
      {"state": "TASK_STATE_WORKING"}}})"));
  EXPECT_EQ(working.at("final"), false);
  const auto piece = legacy::LegacyResult(boost::json::parse(R"({"artifactUpdate": {"artifact":
      {"artifactId": "reply", "parts": [{"text": "a"}]}, "append": true, "lastChunk": false}})"));
  EXPECT_EQ(piece.at("kind"), "artifact-update");
  EXPECT_EQ(piece.at("artifact").at("parts").at(0).at("kind"), "text");
}

}  // namespace
}  // namespace agentgate::a2a

namespace agentgate::a2a {
namespace {

TEST(A2aRemoteAgent, ItsCardIsReadOnlyWithAnInterfaceOnTheCardsOrigin) {
  EXPECT_EQ(OriginOf("https://A.example.com:443/a2a/x"), "https://a.example.com");
  EXPECT_EQ(OriginOf("http://127.0.0.1:8080/.well-known/agent-card.json"), "http://127.0.0.1:8080");
  EXPECT_EQ(OriginOf("ftp://x/y"), "");
  EXPECT_EQ(OriginOf("https://user@x.example/"), "");
  const auto card = boost::json::parse(R"({"name": "Billing", "description": "Balances.",
      "capabilities": {"streaming": true},
      "skills": [{"id": "b", "name": "balance", "description": "Reads a balance"}],
      "supportedInterfaces": [
        {"url": "https://other.example/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "https://billing.example/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        {"url": "https://billing.example/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]})");
  const auto read = ReadRemoteCard(card, "https://billing.example/.well-known/agent-card.json");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->rpc_url, "https://billing.example/rpc");
  EXPECT_TRUE(read->streaming);
  EXPECT_EQ(read->skills, "- balance: Reads a balance\n");
  const auto tool = RemoteAgentTool("billing", *read);
  EXPECT_EQ(tool.name, "billing");
  EXPECT_NE(tool.description.find("Balances."), std::string::npos);
  EXPECT_NE(tool.description.find("- balance: Reads a balance"), std::string::npos);
  EXPECT_EQ(tool.parameters.at("required").at(0), "message");
  // Elsewhere only: refused, naming both origins.
  const auto elsewhere = ReadRemoteCard(card, "https://evil.example/card.json");
  ASSERT_FALSE(elsewhere);
  EXPECT_NE(elsewhere.error().message.find("https://evil.example"), std::string::npos);
  EXPECT_FALSE(ReadRemoteCard(boost::json::parse(R"({"name": "x"})"), "https://x/card"));
  EXPECT_FALSE(ReadRemoteCard(boost::json::parse("[1]"), "https://x/card"));
}

TEST(A2aRemoteAgent, ItsAnswerIsTheReplyAQuestionOrAnError) {
  EXPECT_EQ(*RemoteMessageText(R"({"message": "balance of A-1?"})"), "balance of A-1?");
  EXPECT_FALSE(RemoteMessageText(R"({"text": "x"})"));
  const auto params = RemoteSendParams("m-1", "hi", "task-1", "ctx-1");
  EXPECT_EQ(params.at("message").at("taskId"), "task-1");
  EXPECT_EQ(params.at("message").at("parts").at(0).at("text"), "hi");
  EXPECT_FALSE(RemoteSendParams("m-1", "hi", "", "").at("message").as_object().contains("taskId"));

  const auto done = ReadRemoteResult(boost::json::parse(R"({"task": {"id": "t", "status":
      {"state": "TASK_STATE_COMPLETED"}, "artifacts": [{"parts": [{"text": "Balance: 12 EUR"},
      {"text": " today"}, {"data": {"eur": 12}}]}]}})"),
                                     1000);
  EXPECT_EQ(done.text, "Balance: 12 EUR today\n{\"eur\":12}");  // appended text is one text
  EXPECT_FALSE(done.question);
  const auto asks = ReadRemoteResult(boost::json::parse(R"({"task": {"id": "t", "contextId": "c",
      "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {"parts": [{"text":
      "Which account?"}]}}}})"),
                                     1000);
  ASSERT_TRUE(asks.question);
  EXPECT_EQ(asks.question->question, "Which account?");
  const auto state = ReadRemoteAskState(RemoteAskState(*asks.question));
  ASSERT_TRUE(state);
  EXPECT_EQ(state->task_id, "t");
  EXPECT_EQ(state->context_id, "c");
  // 0.3's shapes, a failure, a message, and a long reply clipped.
  const auto legacy = ReadRemoteResult(
      boost::json::parse(R"({"kind": "task", "id": "t", "status": {"state": "input-required"}})"),
      1000);
  ASSERT_TRUE(legacy.question);
  const auto failed = ReadRemoteResult(boost::json::parse(R"({"task": {"id": "t", "status":
      {"state": "TASK_STATE_FAILED", "message": {"parts": [{"text": "no such account"}]}}}})"),
                                       1000);
  EXPECT_EQ(failed.text, "error: the agent's task is failed: no such account");
  EXPECT_EQ(
      ReadRemoteResult(boost::json::parse(R"({"message": {"parts": [{"text": "hi"}]}})"), 9).text,
      "hi");
  EXPECT_EQ(ReadRemoteResult(boost::json::parse(R"({"message": {"parts": [{"text":
      "0123456789"}]}})"),
                             4)
                .text,
            "0123...");
  EXPECT_EQ(ReadRemoteResult(boost::json::parse("[]"), 9).text.substr(0, 6), "error:");
}

}  // namespace
}  // namespace agentgate::a2a
