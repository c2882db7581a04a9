#include "domain/schema/json_schema.hpp"

#include "domain/json_text.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace agentgate::schema {
namespace {

namespace json = boost::json;

const char* kRefund = R"({
  "type": "object",
  "properties": {
    "refund": {"type": "object", "properties": {"amount": {"type": "number", "minimum": 0},
                                                "currency": {"enum": ["EUR", "USD"]}},
               "required": ["amount", "currency"], "additionalProperties": false},
    "escalate": {"type": "boolean"},
    "items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string", "minLength": 3}},
                                         "required": ["sku"]}, "maxItems": 2}
  },
  "required": ["refund", "escalate"]
})";

std::string FieldOf(const Result<json::value>& r) {
  return r ? "" : std::string(r.error().field().value_or(""));
}

TEST(AnswerSchema, AcceptsTheSupportedKeywords) {
  EXPECT_TRUE(ReadAnswerSchema(json::parse(kRefund), "output_schema"));
  EXPECT_TRUE(ReadAnswerSchema(json::parse(R"({"type": "object", "description": "x",
      "properties": {"a": {"anyOf": [{"type": "string", "maxLength": 2}, {"const": 3}]},
                     "b": {"type": ["integer", "null"], "exclusiveMinimum": 0, "exclusiveMaximum": 9}},
      "additionalProperties": {"type": "string"}})"),
                               "f"));
}

TEST(AnswerSchema, RefusesWhatIsOutsideTheSubsetNamingItsPlace) {
  EXPECT_EQ(FieldOf(ReadAnswerSchema(
                json::parse(R"({"type": "object", "properties": {"a": {"$ref": "#/x"}}})"),
                "output_schema")),
            "output_schema.properties.a.$ref");
  EXPECT_EQ(
      FieldOf(ReadAnswerSchema(json::parse(R"({"type": "object", "patternProperties": {}})"), "f")),
      "f.patternProperties");
  EXPECT_EQ(FieldOf(ReadAnswerSchema(
                json::parse(R"({"type": "object", "properties": {"l": {"items": [{}]}}})"), "f")),
            "f.properties.l.items");
  EXPECT_EQ(FieldOf(ReadAnswerSchema(
                json::parse(R"({"type": "object", "properties": {"n": {"type": "float"}}})"), "f")),
            "f.properties.n.type");
  EXPECT_EQ(
      FieldOf(ReadAnswerSchema(json::parse(R"({"type": "object", "required": ["a", "a"]})"), "f")),
      "f.required");
  EXPECT_EQ(FieldOf(ReadAnswerSchema(json::parse(R"({"type": "object", "anyOf": []})"), "f")),
            "f.anyOf");
  EXPECT_EQ(FieldOf(ReadAnswerSchema(
                json::parse(R"({"type": "object", "properties": {"s": {"minLength": -1}}})"), "f")),
            "f.properties.s.minLength");
  EXPECT_EQ(FieldOf(ReadAnswerSchema(
                json::parse(R"({"type": "object", "properties": {"s": {"maximum": "9"}}})"), "f")),
            "f.properties.s.maximum");
  EXPECT_EQ(
      FieldOf(ReadAnswerSchema(json::parse(R"({"type": "object", "properties": {"s": 3}})"), "f")),
      "f.properties.s");
}

TEST(AnswerSchema, CountBoundsAreIntegersUpToAMillionAndHugeNumbersNeverThrow) {
  EXPECT_EQ(
      FieldOf(ReadAnswerSchema(
          json::parse(
              R"({"type": "object", "properties": {"s": {"maxLength": 18446744073709551615}}})"),
          "f")),
      "f.properties.s.maxLength");
  EXPECT_EQ(FieldOf(ReadAnswerSchema(
                json::parse(R"({"type": "object", "properties": {"s": {"minItems": 1e7}}})"), "f")),
            "f.properties.s.minItems");
  const auto schema = json::parse(R"({"type": "object", "properties": {
      "n": {"type": "integer", "minimum": 9007199254740993, "maximum": 1e300},
      "l": {"type": "array", "minItems": 1000000, "items": {"type": "array", "minItems": 1000000}}}})");
  ASSERT_TRUE(ReadAnswerSchema(schema, "f"));
  const auto example = ExampleOf(schema);  // bounded: 16 items a level
  EXPECT_EQ(example.at("l").as_array().size(), 16u);
  EXPECT_FALSE(Validate(schema, json::parse(R"({"n": 18446744073709551615, "l": []})")).empty());
}

TEST(AnswerSchema, MustBeAnObjectAtItsRoot) {
  EXPECT_EQ(FieldOf(ReadAnswerSchema(json::parse(R"({"type": "array"})"), "f")), "f.type");
  EXPECT_EQ(FieldOf(ReadAnswerSchema(json::parse(R"({"properties": {}})"), "f")), "f.type");
  EXPECT_EQ(FieldOf(ReadAnswerSchema(json::parse("true"), "f")), "f");
  EXPECT_EQ(FieldOf(ReadAnswerSchema(json::parse(R"("object")"), "f")), "f");
}

TEST(AnswerSchema, IsBoundedInSizeAndDepth) {
  std::string deep = R"({"type": "object"})";
  for (int i = 0; i < kMaxSchemaDepth; ++i)
    deep = R"({"type": "object", "properties": {"a": )" + deep + "}}";
  const auto too_deep = ReadAnswerSchema(json::parse(deep), "f");
  ASSERT_FALSE(too_deep);
  EXPECT_NE(too_deep.error().message.find("deeper than 10"), std::string::npos);
  std::string big =
      R"({"type": "object", "description": ")" + std::string(kMaxSchemaBytes, 'x') + "\"}";
  EXPECT_EQ(FieldOf(ReadAnswerSchema(json::parse(big), "f")), "f");
}

TEST(Validate, AcceptsAValidAnswer) {
  const auto schema = json::parse(kRefund);
  EXPECT_TRUE(Validate(schema, json::parse(R"({"refund": {"amount": 12.5, "currency": "EUR"},
      "escalate": false, "items": [{"sku": "A-100", "note": "kept"}]})"))
                  .empty());
}

TEST(Validate, NamesEachViolationsPlace) {
  const auto schema = json::parse(kRefund);
  const auto found =
      Validate(schema, json::parse(R"({"refund": {"amount": -1, "currency": "GBP", "extra": 1},
      "items": [{"sku": "A"}, {}, {"sku": "ABC"}]})"));
  const std::vector<Violation> expected{
      {"$.escalate", "is required"},
      {"$.refund.amount", "must be at least 0"},
      {"$.refund.currency", "must be one of the schema's enum values"},
      {"$.refund.extra", "is not a property the schema allows"},
      {"$.items", "must have at most 2 items"},
      {"$.items[0].sku", "must be at least 3 characters long"},
      {"$.items[1].sku", "is required"},
  };
  EXPECT_EQ(found, expected);
  EXPECT_EQ(Validate(schema, json::parse("[]")),
            (std::vector<Violation>{{"$", "must be of type object"}}));
  EXPECT_EQ(Validate(schema, json::parse(R"({"items": 1})"), 2).size(), 2u);  // at most the limit
}

TEST(Validate, CountsCharactersNotBytesAndIntegersByValue) {
  const auto schema =
      json::parse(R"({"properties": {"s": {"maxLength": 2}, "i": {"type": "integer"}}})");
  EXPECT_TRUE(Validate(schema, json::parse(R"({"s": "\u00e9\u00e9", "i": 3.0})")).empty());
  EXPECT_EQ(Validate(schema, json::parse(R"({"s": "abc", "i": 3.5})")).size(), 2u);
}

TEST(JsonEqual, ReadsNumbersByValueAndBooleansApart) {
  EXPECT_TRUE(JsonEqual(json::parse("1"), json::parse("1.0")));
  EXPECT_TRUE(JsonEqual(json::parse(R"({"a": [1, {"b": null}], "c": "x"})"),
                        json::parse(R"({"c": "x", "a": [1.0, {"b": null}]})")));
  EXPECT_FALSE(JsonEqual(json::parse("true"), json::parse("1")));
  EXPECT_FALSE(JsonEqual(json::parse("[1]"), json::parse("[1, 1]")));
  EXPECT_TRUE(JsonEqual(json::parse("18446744073709551615"), json::parse("18446744073709551615")));
  EXPECT_FALSE(JsonEqual(json::parse("-1"), json::parse("18446744073709551615")));
}

TEST(StrictForm, ClosesNothingItselfAndDropsTheBounds) {
  const auto strict = StrictForm(json::parse(R"({"type": "object", "additionalProperties": false,
      "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 5}, "l": {"type": "array", "maxItems": 3,
        "items": {"type": "object", "properties": {"s": {"type": "string", "minLength": 2}}, "required": ["s"],
                  "additionalProperties": false}}},
      "required": ["n", "l"]})"));
  ASSERT_TRUE(strict);
  EXPECT_EQ(json_text::Write(*strict),
            R"({"type":"object","additionalProperties":false,"properties":{"n":{"type":"integer"},)"
            R"("l":{"type":"array","items":{"type":"object","properties":{"s":{"type":"string"}},)"
            R"("required":["s"],"additionalProperties":false}}},"required":["n","l"]})");
}

TEST(StrictForm, IsNoneForAnOpenObjectOrAnOptionalProperty) {
  EXPECT_FALSE(StrictForm(json::parse(kRefund)));  // the root is open
  EXPECT_FALSE(StrictForm(json::parse(R"({"type": "object", "additionalProperties": false,
      "properties": {"a": {"type": "string"}}})")));
  EXPECT_FALSE(StrictForm(json::parse(R"({"type": "object", "additionalProperties": false,
      "properties": {"a": true}, "required": ["a"]})")));
}

TEST(AnswerSchema, ASchemaWhoseSmallestAnswerIsHugeIsRefused) {
  // 415 bytes that asked the offline model for about 16 GiB: every level required, 1,000 items.
  std::string nested = R"({"type": "string", "minLength": 1000})";
  for (int i = 0; i < 3; ++i)
    nested = R"({"type": "array", "minItems": 1000, "items": )" + nested + "}";
  const auto huge =
      json::parse(R"({"type": "object", "required": ["a"], "properties": {"a": )" + nested + "}}");
  const auto refused = ReadAnswerSchema(huge, "response_format.schema");
  EXPECT_EQ(FieldOf(refused), "response_format.schema");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("65536 bytes"), std::string::npos);
  // The same lengths on optional properties cost nothing: an answer may leave them out.
  const auto optional = json::parse(R"({"type": "object", "properties": {"a": )" + nested + "}}");
  EXPECT_TRUE(ReadAnswerSchema(optional, "f"));
  EXPECT_EQ(SmallestAnswerBytes(optional, 1 << 20), 2u);
  // Just under the bound is fine; just over is not.
  const auto sized = [](std::size_t length) {
    return json::parse(R"({"type": "object", "required": ["s"], "properties": {"s":
        {"type": "string", "minLength": )" +
                       std::to_string(length) + "}}}");
  };
  EXPECT_EQ(SmallestAnswerBytes(sized(100), 1 << 20), 2u + 3u + 2u + 100u + 2u);
  EXPECT_TRUE(ReadAnswerSchema(sized(kMaxAnswerBytes - 9), "f"));
  EXPECT_FALSE(ReadAnswerSchema(sized(kMaxAnswerBytes), "f"));
  // The smallest of the choices counts: an enum's shortest value, anyOf's smallest option.
  EXPECT_EQ(SmallestAnswerBytes(json::parse(R"({"enum": ["long value", 1]})"), 100), 1u);
  EXPECT_EQ(SmallestAnswerBytes(json::parse(R"({"anyOf": [{"type": "string", "minLength": 50},
                                                          {"type": "null"}]})"),
                                100),
            4u);
  EXPECT_EQ(
      SmallestAnswerBytes(json::parse(R"({"type": ["string", "boolean"], "minLength": 9})"), 100),
      4u);
}

TEST(ExampleOf, StaysWithinItsBudgetAndFallsBackToTheSmallestAnswer) {
  // Nine levels of arrays under an optional property: a full example would hold 4^8 strings.
  std::string nested = R"({"type": "string", "minLength": 1000})";
  for (int i = 0; i < 8; ++i)
    nested = R"({"type": "array", "minItems": 4, "items": )" + nested + "}";
  const auto schema = json::parse(
      R"({"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}, "deep": )" +
      nested + "}}");
  ASSERT_TRUE(ReadAnswerSchema(schema, "f"));
  const auto example = ExampleOf(schema);
  EXPECT_TRUE(Validate(schema, example).empty()) << json_text::Write(example);
  EXPECT_LE(json_text::Write(example).size(), kMaxAnswerBytes);
  EXPECT_EQ(json_text::Write(example), R"({"id":0})");
}

TEST(ExampleOf, BuildsAValueTheSchemaAccepts) {
  for (const char* text :
       {kRefund,
        R"({"type": "object", "properties": {"n": {"type": "integer", "exclusiveMinimum": 4},
                               "m": {"type": "number", "minimum": 2.5, "maximum": 3},
                               "s": {"type": "string", "minLength": 12, "maxLength": 12},
                               "c": {"const": {"k": [1]}}, "o": {"anyOf": [{"type": "null"}, {"type": "string"}]},
                               "l": {"type": "array", "minItems": 3, "items": {"enum": ["x"]}}},
                               "required": ["n", "m", "s", "c", "o", "l"]})"}) {
    const auto schema = json::parse(text);
    const auto example = ExampleOf(schema);
    EXPECT_TRUE(Validate(schema, example).empty()) << json_text::Write(example);
  }
}

}  // namespace
}  // namespace agentgate::schema

namespace agentgate::schema {
namespace {

// A Pydantic v2 model as openai-python's .parse() sends it: a title on every property, $defs
// and $ref for a nested model and an enum, a default.
const char* kPydantic = R"({
  "$defs": {
    "Priority": {"enum": ["low", "high"], "title": "Priority", "type": "string"},
    "Contact": {"properties": {"email": {"format": "email", "title": "Email", "type": "string"},
                               "name": {"title": "Name", "type": "string"}},
                "required": ["email", "name"], "title": "Contact", "type": "object",
                "additionalProperties": false}
  },
  "properties": {
    "contact": {"$ref": "#/$defs/Contact"},
    "priority": {"$ref": "#/$defs/Priority", "default": "low"},
    "tags": {"items": {"type": "string", "pattern": "^[a-z]+$"}, "title": "Tags", "type": "array",
             "uniqueItems": true}
  },
  "required": ["contact", "priority", "tags"],
  "title": "Ticket", "type": "object", "additionalProperties": false,
  "$schema": "https://json-schema.org/draft/2020-12/schema"
})";

TEST(SdkSchemas, APydanticModelIsReadValidatedAndSentStrict) {
  const auto schema = ReadAnswerSchema(json::parse(kPydantic), "response_format.schema");
  ASSERT_TRUE(schema) << schema.error().message;
  EXPECT_TRUE(Validate(*schema, json::parse(R"({"contact": {"email": "a@b.example", "name": "A"},
      "priority": "high", "tags": ["x", "y"]})"))
                  .empty());
  const auto bad = Validate(*schema, json::parse(R"({"contact": {"email": "nope", "name": "A"},
      "priority": "urgent", "tags": ["x", "x", "Y"]})"));
  std::vector<std::string> paths;
  for (const auto& v : bad) paths.push_back(v.path);
  EXPECT_EQ(paths,
            (std::vector<std::string>{"$.contact.email", "$.priority", "$.tags[1]", "$.tags[2]"}));
  const auto strict = StrictForm(*schema);
  ASSERT_TRUE(strict);
  const std::string sent = json_text::Write(*strict);
  EXPECT_EQ(sent.find("$schema"), std::string::npos);
  EXPECT_EQ(sent.find("\"default\""), std::string::npos);
  EXPECT_EQ(sent.find("\"pattern\""), std::string::npos);
  EXPECT_NE(sent.find("#/$defs/Contact"), std::string::npos);
  EXPECT_TRUE(Validate(*schema, ExampleOf(*schema)).empty())
      << json_text::Write(ExampleOf(*schema));
}

TEST(SdkSchemas, RecursiveRefsValidateByDescendingAndARequiredCycleIsRefused) {
  const auto tree = ReadAnswerSchema(json::parse(R"({"type": "object", "$ref": "#/$defs/Node",
      "$defs": {"Node": {"type": "object", "properties": {"name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                "required": ["name"]}}})"),
                                     "f");
  ASSERT_TRUE(tree) << tree.error().message;
  EXPECT_TRUE(Validate(*tree, json::parse(R"({"name": "a", "children": [{"name": "b",
      "children": [{"name": "c"}]}]})"))
                  .empty());
  const auto deep =
      Validate(*tree, json::parse(R"({"name": "a", "children": [{"children": []}]})"));
  ASSERT_EQ(deep.size(), 1u);
  EXPECT_EQ(deep[0].path, "$.children[0].name");
  EXPECT_TRUE(Validate(*tree, ExampleOf(*tree)).empty());

  const auto cycle = ReadAnswerSchema(json::parse(R"({"type": "object", "required": ["a"],
      "properties": {"a": {"$ref": "#"}}})"),
                                      "f");
  ASSERT_FALSE(cycle);
  EXPECT_NE(cycle.error().message.find("no valid answer"), std::string::npos);
  const auto alias = ReadAnswerSchema(json::parse(R"({"type": "object", "properties": {
      "a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"$ref": "#/$defs/y"}, "y": {"$ref": "#/$defs/x"}}})"),
                                      "f");
  ASSERT_FALSE(alias);
  EXPECT_EQ(std::string(alias.error().field().value_or("")), "f.properties.a.$ref");
}

TEST(SdkSchemas, AHostilePatternRunsInLinearTimeAndALookaroundIsRefused) {
  const auto schema = ReadAnswerSchema(
      json::parse(
          R"({"type": "object", "properties": {"s": {"type": "string", "pattern": "(a+)+$"}}})"),
      "f");
  ASSERT_TRUE(schema);
  // Backtracking engines take exponential time on these; RE2 answers both in one pass.
  json::object value;
  value["s"] = std::string(100000, 'a') + "!";
  EXPECT_EQ(Validate(*schema, value).size(), 1u);
  value["s"] = std::string(100000, 'a');
  EXPECT_TRUE(Validate(*schema, value).empty());
  const auto lookahead = ReadAnswerSchema(
      json::parse(R"({"type": "object", "properties": {"s": {"pattern": "(?=a)b"}}})"), "f");
  ASSERT_FALSE(lookahead);
  EXPECT_EQ(std::string(lookahead.error().field().value_or("")), "f.properties.s.pattern");
}

TEST(SdkSchemas, FormatsOneOfAllOfAndTheCountsAreChecked) {
  const auto schema = ReadAnswerSchema(json::parse(R"({"type": "object", "properties": {
      "when": {"type": "string", "format": "date-time"}, "ip": {"format": "ipv6"},
      "id": {"format": "uuid"}, "n": {"type": "number", "multipleOf": 0.5},
      "pick": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 10}]},
      "both": {"allOf": [{"minLength": 2}, {"maxLength": 3}]},
      "bag": {"type": "object", "minProperties": 1, "maxProperties": 2}}})"),
                                       "f");
  ASSERT_TRUE(schema) << schema.error().message;
  EXPECT_TRUE(Validate(*schema, json::parse(R"({"when": "2026-02-28T23:59:60+01:00",
      "ip": "2001:db8::1", "id": "123e4567-e89b-12d3-a456-426614174000", "n": 1.5, "pick": 3,
      "both": "ab", "bag": {"a": 1}})"))
                  .empty());
  std::vector<std::string> paths;
  for (const auto& v : Validate(*schema, json::parse(R"({"when": "2026-02-30T00:00:00Z",
      "ip": "1.2.3.4", "id": "nope", "n": 1.2, "pick": 12, "both": "abcd", "bag": {}})")))
    paths.push_back(v.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"$.when", "$.ip", "$.id", "$.n", "$.pick", "$.both",
                                             "$.bag"}));
  EXPECT_EQ(std::string(ReadAnswerSchema(json::parse(R"({"type": "object", "properties": {
      "u": {"format": "uri"}}})"),
                                         "f")
                            .error()
                            .field()
                            .value_or("")),
            "f.properties.u.format");
  EXPECT_FALSE(StrictForm(*schema));  // allOf: sent without strict mode
  const std::string sent = json_text::Write(SentForm(*schema));
  EXPECT_NE(sent.find("allOf"), std::string::npos);
}

TEST(SdkSchemas, ARefusedSchemaNamesItsLimits) {
  std::string deep = R"({"type": "object"})";
  for (int i = 0; i < 64; ++i) deep = R"({"type": "object", "properties": {"a": )" + deep + "}}";
  json::parse_options options;
  options.max_depth = 512;
  const auto too_deep = ReadAnswerSchema(json::parse(deep, {}, options), "f");
  ASSERT_FALSE(too_deep);
  EXPECT_NE(too_deep.error().message.find("deeper than 10"), std::string::npos);
  const std::string huge =
      R"({"type": "object", "description": ")" + std::string(1 << 20, 'x') + "\"}";
  const auto too_big = ReadAnswerSchema(json::parse(huge), "f");
  ASSERT_FALSE(too_big);
  EXPECT_NE(too_big.error().message.find("larger than"), std::string::npos);
}

}  // namespace
}  // namespace agentgate::schema
