// The answer-schema validator (domain/schema) against ajv, a widely used implementation
// (tests/counterparts/ajv_check.mjs, pinned, 2020-12 mode): answers generated from a set of schemas
// that use every supported keyword (each schema's own example, then that example broken one way
// at a time) must be judged the same by both.
#include "domain/json_text.hpp"
#include "domain/schema/json_schema.hpp"

#include "support/command_output.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

namespace agentgate::testing {
namespace {

namespace json = boost::json;

const char* kSchemas[] = {
    R"({"type": "object", "properties": {
          "refund": {"type": "object", "properties": {
              "amount": {"type": "number", "minimum": 0, "maximum": 500},
              "currency": {"enum": ["EUR", "USD", "GBP"]}},
            "required": ["amount", "currency"], "additionalProperties": false},
          "escalate": {"type": "boolean"},
          "reason": {"type": "string", "minLength": 3, "maxLength": 40, "description": "why"}},
        "required": ["refund", "escalate"]})",
    R"({"type": "object", "properties": {
          "items": {"type": "array", "minItems": 1, "maxItems": 3, "items": {
              "type": "object", "properties": {"sku": {"type": "string", "minLength": 2},
                                               "qty": {"type": "integer", "exclusiveMinimum": 0,
                                                       "exclusiveMaximum": 100}},
              "required": ["sku", "qty"]}},
          "kind": {"const": "order"}},
        "required": ["items", "kind"], "additionalProperties": {"type": "string"}})",
    R"({"type": "object", "properties": {
          "contact": {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"},
                                {"type": "object", "properties": {"email": {"type": "string"}},
                                 "required": ["email"]}]},
          "score": {"type": ["integer", "null"], "minimum": -5, "maximum": 5},
          "tags": {"type": "array", "items": {"enum": ["a", 1, true, null, {"k": [1]}]}}},
        "required": ["contact", "score"]})",
};

// Every value and sub-value of `v`, by pointer, so one can be broken in place.
void Collect(json::value& v, std::vector<json::value*>& out) {
  out.push_back(&v);
  if (v.is_object())
    for (auto& kv : v.get_object()) Collect(kv.value(), out);
  if (v.is_array())
    for (auto& e : v.get_array()) Collect(e, out);
}

// The example broken one way: a value replaced by another kind, a key dropped or added, a number
// or length moved past a bound.
json::value Broken(const json::value& example, std::mt19937& random) {
  json::value copy = example;
  std::vector<json::value*> places;
  Collect(copy, places);
  json::value& at = *places[random() % places.size()];
  const json::value replacements[] = {nullptr,
                                      true,
                                      0,
                                      -1,
                                      7,
                                      2.5,
                                      1e6,
                                      "",
                                      "a",
                                      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                                      json::array{},
                                      json::array{1, 2, 3, 4},
                                      json::object{}};
  switch (random() % 3) {
    case 0:
      at = replacements[random() % std::size(replacements)];
      break;
    case 1:
      if (at.is_object() && !at.get_object().empty()) {
        at.get_object().erase(at.get_object().begin());
      } else if (at.is_array() && !at.get_array().empty()) {
        at.get_array().pop_back();
      } else {
        at = json::array{at};
      }
      break;
    default:
      if (at.is_object()) {
        at.get_object()["extra"] = random() % 2 ? json::value("x") : json::value(1);
      } else if (at.is_array()) {
        at.get_array().push_back(at.get_array().empty() ? json::value(1) : at.get_array().front());
      } else {
        at = replacements[random() % std::size(replacements)];
      }
  }
  return copy;
}

TEST(AnswerSchemaAgainstAjv, BothJudgeEveryGeneratedAnswerAlike) {
  std::mt19937 random(20261202);
  json::array cases;
  std::vector<bool> ours;
  for (const char* text : kSchemas) {
    const json::value schema = json::parse(text);
    ASSERT_TRUE(schema::ReadAnswerSchema(schema, "schema"));
    const json::value example = schema::ExampleOf(schema);
    std::vector<json::value> values{example};
    for (int i = 0; i < 150; ++i) values.push_back(Broken(example, random));
    for (const auto& value : values) {
      cases.push_back(json::object{{"schema", schema}, {"value", value}});
      ours.push_back(schema::Validate(schema, value).empty());
    }
  }
  const std::string counterparts = AGENTGATE_COUNTERPARTS_DIR;
  CommandOutput("bash " AGENTGATE_SOURCE_DIR "/tests/counterparts/install.sh " + counterparts +
                " >/dev/null");
  const auto file =
      std::filesystem::temp_directory_path() / ("ajv-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << json_text::Write(cases);
  const std::string printed =
      CommandOutput("node " + counterparts + "/ajv_check.mjs " + file.string());
  std::filesystem::remove(file);
  const json::value verdicts = json::parse(printed);
  ASSERT_EQ(verdicts.as_array().size(), ours.size()) << printed.substr(0, 200);
  int valid = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    EXPECT_EQ(ours[i], verdicts.as_array()[i].as_bool())
        << json_text::Write(cases[i].at("value")) << " against schema "
        << json_text::Write(cases[i].at("schema"));
    valid += ours[i] ? 1 : 0;
  }
  // Both verdicts occur often: a generator that only made one kind would prove little.
  EXPECT_GT(valid, 30);
  EXPECT_LT(valid, static_cast<int>(ours.size()) - 100);
}

}  // namespace
}  // namespace agentgate::testing
