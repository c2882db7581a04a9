// CheckSchema, ReadAnswerSchema and StrictForm (domain/schema/json_schema.hpp).
#include "domain/schema/json_schema.hpp"

#include "domain/json_text.hpp"

#include <boost/json/object.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <span>

namespace agentgate::schema {
namespace {

namespace json = boost::json;

constexpr std::string_view kTypes[] = {"object",  "array",   "string", "number",
                                       "integer", "boolean", "null"};
constexpr std::string_view kCountBounds[] = {"minLength", "maxLength", "minItems", "maxItems"};
constexpr std::string_view kNumberBounds[] = {"minimum", "maximum", "exclusiveMinimum",
                                              "exclusiveMaximum"};

bool IsOneOf(std::string_view s, std::span<const std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// A count bound (a length, a number of items) is an integer from 0 to kMaxCount.
constexpr double kMaxCount = 1e6;

double AsDouble(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return v.is_double() ? v.get_double() : 0;
}

bool IsCount(const json::value& v) {
  if (!v.is_number()) return false;
  const double d = AsDouble(v);
  return d >= 0 && d <= kMaxCount && std::floor(d) == d;
}

std::string At(std::string_view field, std::string_view key) {
  return std::string(field) + "." + std::string(key);
}
std::string At(std::string_view field, std::size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}

Result<void> CheckType(const json::value& type, const std::string& field) {
  const char* problem = "must be a JSON Schema type or a list of them";
  if (type.is_string()) {
    if (!IsOneOf(type.get_string(), kTypes)) return InvalidField(field, problem);
    return {};
  }
  if (!type.is_array() || type.get_array().empty()) return InvalidField(field, problem);
  std::set<std::string_view> seen;
  for (const auto& t : type.get_array()) {
    if (!t.is_string() || !IsOneOf(t.get_string(), kTypes)) return InvalidField(field, problem);
    if (!seen.insert(t.get_string()).second) return InvalidField(field, "lists a type twice");
  }
  return {};
}

Result<void> Check(const json::value& schema, const std::string& field, int depth) {
  if (depth > kMaxSchemaDepth)
    return InvalidField(field, "nests schemas deeper than " + std::to_string(kMaxSchemaDepth));
  if (schema.is_bool()) return {};
  if (!schema.is_object()) return InvalidField(field, "must be a schema (an object or a boolean)");
  for (const auto& kv : schema.get_object()) {
    const std::string_view key = kv.key();
    const json::value& v = kv.value();
    const std::string at = At(field, key);
    if (key == "type") {
      AG_TRYV(CheckType(v, at));
    } else if (key == "properties") {
      if (!v.is_object()) return InvalidField(at, "must be an object of schemas");
      for (const auto& property : v.get_object())
        AG_TRYV(Check(property.value(), At(at, property.key()), depth + 1));
    } else if (key == "required") {
      if (!v.is_array()) return InvalidField(at, "must be an array of property names");
      std::set<std::string_view> seen;
      for (const auto& name : v.get_array()) {
        if (!name.is_string()) return InvalidField(at, "must be an array of property names");
        if (!seen.insert(name.get_string()).second)
          return InvalidField(at, "names a property twice");
      }
    } else if (key == "items") {
      if (v.is_array())
        return InvalidField(at, "must be one schema (the array form is not supported)");
      AG_TRYV(Check(v, at, depth + 1));
    } else if (key == "additionalProperties") {
      AG_TRYV(Check(v, at, depth + 1));
    } else if (key == "anyOf") {
      if (!v.is_array() || v.get_array().empty())
        return InvalidField(at, "must be a non-empty array of schemas");
      for (std::size_t i = 0; i < v.get_array().size(); ++i)
        AG_TRYV(Check(v.get_array()[i], At(at, i), depth + 1));
    } else if (key == "enum") {
      if (!v.is_array() || v.get_array().empty())
        return InvalidField(at, "must be a non-empty array");
    } else if (key == "const") {
      // any value
    } else if (key == "description") {
      if (!v.is_string()) return InvalidField(at, "must be a string");
    } else if (IsOneOf(key, kCountBounds)) {
      if (!IsCount(v)) return InvalidField(at, "must be an integer from 0 to 1000000");
    } else if (IsOneOf(key, kNumberBounds)) {
      if (!v.is_number()) return InvalidField(at, "must be a number");
    } else {
      return InvalidField(at, "is not a supported schema keyword (docs/structured-output.md)");
    }
  }
  return {};
}

}  // namespace

Result<void> CheckSchema(const json::value& schema, std::string_view field) {
  return Check(schema, std::string(field), 1);
}

Result<json::value> ReadAnswerSchema(const json::value& schema, std::string_view field) {
  if (!schema.is_object()) return InvalidField(field, "must be a JSON Schema object");
  if (json_text::Write(schema).size() > kMaxSchemaBytes)
    return InvalidField(field, "is larger than " + std::to_string(kMaxSchemaBytes) + " bytes");
  AG_TRYV(CheckSchema(schema, field));
  const auto* type = schema.get_object().if_contains("type");
  if (type == nullptr || !type->is_string() || type->get_string() != "object")
    return InvalidField(At(field, "type"), "must be \"object\": an answer is a JSON object");
  // An answer the schema forces to be huge is billed, stored and sent to every follower.
  if (SmallestAnswerBytes(schema, kMaxAnswerBytes + 1) > kMaxAnswerBytes) {
    return InvalidField(field, "has no valid answer of " + std::to_string(kMaxAnswerBytes) +
                                   " bytes or fewer (its lengths and item counts force more)");
  }
  return schema;
}

std::optional<json::value> StrictForm(const json::value& schema) {
  if (!schema.is_object()) return std::nullopt;
  json::object out;
  const json::object& s = schema.get_object();
  for (const auto& kv : s) {
    const std::string_view key = kv.key();
    if (IsOneOf(key, kCountBounds) || IsOneOf(key, kNumberBounds)) continue;
    if (key == "properties") {
      json::object properties;
      for (const auto& p : kv.value().get_object()) {
        auto strict = StrictForm(p.value());
        if (!strict) return std::nullopt;
        properties.emplace(p.key(), std::move(*strict));
      }
      out.emplace(key, std::move(properties));
    } else if (key == "items") {
      auto strict = StrictForm(kv.value());
      if (!strict) return std::nullopt;
      out.emplace(key, std::move(*strict));
    } else if (key == "anyOf") {
      json::array options;
      for (const auto& option : kv.value().get_array()) {
        auto strict = StrictForm(option);
        if (!strict) return std::nullopt;
        options.push_back(std::move(*strict));
      }
      out.emplace(key, std::move(options));
    } else if (key == "additionalProperties") {
      if (!kv.value().is_bool() || kv.value().get_bool()) return std::nullopt;
      out.emplace(key, false);
    } else {
      out.emplace(key, kv.value());
    }
  }
  // An object schema is closed, and all its properties are required.
  const auto* type = s.if_contains("type");
  const bool object =
      s.contains("properties") || (type && type->is_string() && type->get_string() == "object");
  if (object) {
    const auto* closed = s.if_contains("additionalProperties");
    if (closed == nullptr || !closed->is_bool() || closed->get_bool()) return std::nullopt;
    std::set<std::string_view> required;
    if (const auto* r = s.if_contains("required"))
      for (const auto& name : r->get_array()) required.insert(name.get_string());
    if (const auto* p = s.if_contains("properties"))
      for (const auto& property : p->get_object())
        if (!required.contains(property.key())) return std::nullopt;
  }
  return json::value(std::move(out));
}

}  // namespace agentgate::schema
