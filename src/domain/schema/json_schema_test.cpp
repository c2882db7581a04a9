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
