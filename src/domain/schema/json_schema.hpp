#pragma once
// The JSON Schema subset an agent's final answer may be held to (docs/structured-output.md):
// checking a schema uses only that subset, validating a value against it, and the forms the
// providers are sent. Schemas as the SDKs write them are read: annotations ($schema, title,
// default, ...) are ignored, local $ref into $defs or definitions is followed (recursive ones
// too: validation descends into the value, so it ends). Pure: no I/O.

#include "domain/error.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate::schema {

// The most a schema may weigh (its compact JSON) and nest (schemas within schemas, the root 1).
constexpr std::size_t kMaxSchemaBytes = 32 * 1024;
constexpr int kMaxSchemaDepth = 10;
// The most the smallest valid answer of a schema may weigh (its compact JSON).
constexpr std::size_t kMaxAnswerBytes = 64 * 1024;
// The most $ref a walk follows in a row without descending into the value: a chain of aliases
// (or a loop through anyOf) longer than this is refused when checked and ends a validation.
constexpr int kMaxRefHops = 32;
// The most steps a validation takes (a schema node applied to a value): past it the answer is
// reported as too costly to validate, so no schema makes one take long.
constexpr std::size_t kMaxValidationSteps = 1'000'000;

// The schema a local `$ref` names within `root` ("#", "#/$defs/Item", "#/definitions/a~1b", its
// parts percent-encoded or not); nullptr when it names none.
const boost::json::value* ResolveRef(const boost::json::value& root, std::string_view ref);

// The `format`s an answer's strings may be held to (OpenAI's structured outputs' list).
bool IsKnownFormat(std::string_view format);
// Whether `text` is a valid `format` (a known one).
bool MatchesFormat(std::string_view format, std::string_view text);
// A fixed valid example of a known `format`.
std::string_view FormatExample(std::string_view format);

// Checks that `schema` (a schema object or a boolean schema) uses only the supported keywords,
// each well formed; an error names the keyword's place, `field` first
// ("config.output_schema.properties.amount.type").
Result<void> CheckSchema(const boost::json::value& schema, std::string_view field);

// An answer's schema as a version or a call gives it: CheckSchema, an object at its root
// ("type": "object"), within kMaxSchemaBytes and kMaxSchemaDepth, and with a valid answer of at
// most kMaxAnswerBytes.
Result<boost::json::value> ReadAnswerSchema(const boost::json::value& schema,
                                            std::string_view field);

// Where a value breaks its schema: `path` in the grammar of docs/structured-output.md
// ("$", "$.refund.amount", "$.items[0].sku").
struct Violation {
  std::string path;
  std::string message;
  bool operator==(const Violation&) const = default;
};

// The value's violations of a checked schema, at most `limit` of them; empty when it is valid.
std::vector<Violation> Validate(const boost::json::value& schema, const boost::json::value& value,
                                std::size_t limit = 20);

// JSON equality as JSON Schema reads it (enum, const): numbers by value (1 equals 1.0), objects
// regardless of key order, true never equal to 1.
bool JsonEqual(const boost::json::value& a, const boost::json::value& b);

// The schema as providers with constrained decoding take it (OpenAI's strict mode, Anthropic's
// structured outputs): every object closed (`additionalProperties: false`) with every property
// required, no boolean schema but that `false`, `oneOf` sent as `anyOf`; the bounds, patterns,
// formats and annotations such providers refuse are left out (agentgate checks them itself).
// nullopt: the schema does not meet those rules (an `allOf`, an open object).
std::optional<boost::json::value> StrictForm(const boost::json::value& schema);

// JSON mode ("response_format": {"type": "json_object"}): the answer is one JSON object, any
// object, validated and repaired like a schema's. It is held as this schema, which a queued run
// keeps as it keeps any; a provider that has a JSON mode is asked for it natively.
boost::json::value JsonObjectSchema();
bool IsJsonObjectSchema(const boost::json::value& schema);

// The schema as sent to a provider without strict mode: the annotations a provider may refuse
// ($schema, $id, $comment, default, examples, ...) left out, every keyword that constrains kept.
boost::json::value SentForm(const boost::json::value& schema);

// The tool a model without native structured output gives its final answer through: its input is
// the answer (the provider adapter reads it back as the reply's text). No config may name a tool
// so.
inline constexpr std::string_view kAnswerToolName = "final_answer";

// A value that the schema accepts, where one is easy to build (the offline model's answer): every
// property, a few items an array; when that would weigh more than kMaxAnswerBytes, the smallest
// answer instead (required properties, the fewest items). Its work is bounded by that budget.
boost::json::value ExampleOf(const boost::json::value& schema);

// A lower bound of the bytes of the smallest value a checked schema accepts (its compact JSON),
// counted no further than `stop`: an answer may leave out optional properties and hold the fewest
// items and characters its bounds allow. Linear in the schema's size.
std::size_t SmallestAnswerBytes(const boost::json::value& schema, std::size_t stop);

}  // namespace agentgate::schema
