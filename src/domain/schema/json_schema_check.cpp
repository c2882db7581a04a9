// CheckSchema, ReadAnswerSchema and StrictForm (domain/schema/json_schema.hpp).
#include "domain/schema/json_schema.hpp"

#include "domain/json_text.hpp"

#include <boost/json/object.hpp>

#include <re2/re2.h>

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
constexpr std::string_view kPropertyCounts[] = {"minProperties", "maxProperties"};
// Read and ignored: they say what a schema is, not what it allows.
constexpr std::string_view kAnnotations[] = {
    "$schema",    "$id",      "$comment",  "title",         "default", "examples",
    "deprecated", "readOnly", "writeOnly", "discriminator", "$anchor", "nullable"};
// Left out of what a provider is sent: some providers refuse them.
constexpr std::string_view kUnsent[] = {"$schema",       "$id",        "$comment", "default",
                                        "examples",      "deprecated", "readOnly", "writeOnly",
                                        "discriminator", "$anchor",    "nullable"};
// Checked by agentgate, not asked of a provider in strict mode.
constexpr std::string_view kStrictLeftOut[] = {"pattern",     "format",        "multipleOf",
                                               "uniqueItems", "minProperties", "maxProperties"};

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

// A `$ref` that names a schema in the root, and not only other references in a ring.
Result<void> CheckRef(const json::value& root, const json::value& ref, const std::string& at) {
  if (!ref.is_string() || !ref.get_string().starts_with("#"))
    return InvalidField(at, "must be a local reference (\"#/$defs/Name\")");
  const json::value* target = ResolveRef(root, ref.get_string());
  for (int hops = 0; target != nullptr; ++hops) {
    if (hops > kMaxRefHops) return InvalidField(at, "is a loop of references that names no schema");
    const auto* next = target->is_object() ? target->get_object().if_contains("$ref") : nullptr;
    if (next == nullptr || !next->is_string()) return {};
    target = ResolveRef(root, next->get_string());
  }
  return InvalidField(at, "names no schema in this one's $defs or definitions");
}

Result<void> CheckPattern(const json::value& v, const std::string& at) {
  if (!v.is_string()) return InvalidField(at, "must be a string");
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(1 << 20);
  const re2::RE2 compiled(re2::StringPiece(v.get_string().data(), v.get_string().size()), options);
  if (!compiled.ok()) {
    return InvalidField(at, "is not a regular expression RE2 runs in linear time (" +
                                compiled.error() + "; lookaround and backreferences are not)");
  }
  return {};
}

Result<void> Check(const json::value& root, const json::value& schema, const std::string& field,
                   int depth);

Result<void> CheckEach(const json::value& root, const json::value& v, const std::string& at,
                       int depth) {
  if (!v.is_array() || v.get_array().empty())
    return InvalidField(at, "must be a non-empty array of schemas");
  for (std::size_t i = 0; i < v.get_array().size(); ++i)
    AG_TRYV(Check(root, v.get_array()[i], At(at, i), depth + 1));
  return {};
}

Result<void> Check(const json::value& root, const json::value& schema, const std::string& field,
                   int depth) {
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
        AG_TRYV(Check(root, property.value(), At(at, property.key()), depth + 1));
    } else if (key == "$defs" || key == "definitions") {
      if (!v.is_object()) return InvalidField(at, "must be an object of schemas");
      for (const auto& def : v.get_object())
        AG_TRYV(Check(root, def.value(), At(at, def.key()), depth + 1));
    } else if (key == "$ref") {
      AG_TRYV(CheckRef(root, v, at));
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
      AG_TRYV(Check(root, v, at, depth + 1));
    } else if (key == "additionalProperties") {
      AG_TRYV(Check(root, v, at, depth + 1));
    } else if (key == "anyOf" || key == "oneOf" || key == "allOf") {
      AG_TRYV(CheckEach(root, v, at, depth));
    } else if (key == "enum") {
      if (!v.is_array() || v.get_array().empty())
        return InvalidField(at, "must be a non-empty array");
    } else if (key == "const") {
      // any value
    } else if (key == "description") {
      if (!v.is_string()) return InvalidField(at, "must be a string");
    } else if (IsOneOf(key, kAnnotations)) {
      // read and ignored
    } else if (key == "pattern") {
      AG_TRYV(CheckPattern(v, at));
    } else if (key == "format") {
      if (!v.is_string() || !IsKnownFormat(v.get_string())) {
        return InvalidField(at,
                            "must be one of date-time, time, date, duration, email, hostname, "
                            "ipv4, ipv6, uuid");
      }
    } else if (key == "multipleOf") {
      if (!v.is_number() || AsDouble(v) <= 0) return InvalidField(at, "must be a number above 0");
    } else if (key == "uniqueItems") {
      if (!v.is_bool()) return InvalidField(at, "must be a boolean");
    } else if (IsOneOf(key, kCountBounds) || IsOneOf(key, kPropertyCounts)) {
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
  return Check(schema, schema, std::string(field), 1);
}

const json::value* ResolveRef(const json::value& root, std::string_view ref) {
  if (!ref.starts_with("#")) return nullptr;
  std::string_view pointer = ref.substr(1);
  const json::value* at = &root;
  while (!pointer.empty()) {
    if (pointer.front() != '/') return nullptr;
    pointer.remove_prefix(1);
    const auto slash = pointer.find('/');
    const std::string_view raw = pointer.substr(0, slash);
    pointer = slash == std::string_view::npos ? std::string_view() : pointer.substr(slash);
    // A part is percent-encoded in a URI fragment, then ~1 is '/' and ~0 is '~' (RFC 6901).
    std::string part;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '%' && i + 2 < raw.size() &&
          std::isxdigit(static_cast<unsigned char>(raw[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(raw[i + 2]))) {
        part += static_cast<char>(std::stoi(std::string(raw.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        part += raw[i];
      }
    }
    std::string key;
    for (std::size_t i = 0; i < part.size(); ++i) {
      if (part[i] == '~' && i + 1 < part.size() && (part[i + 1] == '0' || part[i + 1] == '1')) {
        key += part[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        key += part[i];
      }
    }
    if (at->is_object()) {
      at = at->get_object().if_contains(key);
    } else if (at->is_array() && !key.empty() &&
               std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
               key.size() < 9 && std::stoul(key) < at->get_array().size()) {
      at = &at->get_array()[std::stoul(key)];
    } else {
      return nullptr;
    }
    if (at == nullptr) return nullptr;
  }
  return at;
}

Result<json::value> ReadAnswerSchema(const json::value& schema, std::string_view field) {
  if (!schema.is_object()) return InvalidField(field, "must be a JSON Schema object");
  if (json_text::Write(schema).size() > kMaxSchemaBytes)
    return InvalidField(field, "is larger than " + std::to_string(kMaxSchemaBytes) + " bytes");
  AG_TRYV(CheckSchema(schema, field));
  // The root may name its body with a $ref (some SDKs put every model in $defs).
  const json::value* body = &schema;
  for (int hops = 0; hops < kMaxRefHops && body->is_object(); ++hops) {
    const auto* ref = body->get_object().if_contains("$ref");
    if (ref == nullptr || !ref->is_string()) break;
    body = ResolveRef(schema, ref->get_string());
    if (body == nullptr) return InvalidField(At(field, "$ref"), "names no schema");
  }
  const auto* type = body->is_object() ? body->get_object().if_contains("type") : nullptr;
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
    if (IsOneOf(key, kCountBounds) || IsOneOf(key, kNumberBounds) || IsOneOf(key, kStrictLeftOut) ||
        IsOneOf(key, kUnsent))
      continue;
    if (key == "allOf") return std::nullopt;
    if (key == "properties" || key == "$defs" || key == "definitions") {
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
    } else if (key == "anyOf" || key == "oneOf") {
      // oneOf's "exactly one" is checked here; a provider is asked for one of them.
      json::array options;
      for (const auto& option : kv.value().get_array()) {
        auto strict = StrictForm(option);
        if (!strict) return std::nullopt;
        options.push_back(std::move(*strict));
      }
      out.emplace("anyOf", std::move(options));
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

json::value JsonObjectSchema() {
  return json::object{{"type", "object"}};
}

bool IsJsonObjectSchema(const json::value& schema) {
  const auto* o = schema.if_object();
  if (o == nullptr || o->size() != 1) return false;
  const auto* type = o->if_contains("type");
  return type != nullptr && type->is_string() && type->get_string() == "object";
}

json::value SentForm(const json::value& schema) {
  if (schema.is_array()) {
    json::array out;
    for (const auto& item : schema.get_array()) out.push_back(SentForm(item));
    return out;
  }
  if (!schema.is_object()) return schema;
  json::object out;
  for (const auto& kv : schema.get_object()) {
    const std::string_view key = kv.key();
    if (IsOneOf(key, kUnsent)) continue;
    // What holds schemas is walked; a const's or an enum's values are sent as they are.
    const bool holds_schemas = key == "properties" || key == "$defs" || key == "definitions" ||
                               key == "items" || key == "additionalProperties" || key == "anyOf" ||
                               key == "oneOf" || key == "allOf";
    if (!holds_schemas) {
      out.emplace(key, kv.value());
    } else if (key == "properties" || key == "$defs" || key == "definitions") {
      json::object named;
      for (const auto& p : kv.value().get_object()) named.emplace(p.key(), SentForm(p.value()));
      out.emplace(key, std::move(named));
    } else {
      out.emplace(key, SentForm(kv.value()));
    }
  }
  return out;
}

}  // namespace agentgate::schema
