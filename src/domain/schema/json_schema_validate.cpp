// Validate and JsonEqual (domain/schema/json_schema.hpp).
#include "domain/schema/json_schema.hpp"

#include <boost/json/object.hpp>

#include <re2/re2.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace agentgate::schema {
namespace {

namespace json = boost::json;

std::optional<double> NumberOf(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  if (v.is_double()) return v.get_double();
  return std::nullopt;
}

bool IsInteger(const json::value& v) {
  if (v.is_int64() || v.is_uint64()) return true;
  return v.is_double() && std::isfinite(v.get_double()) &&
         std::floor(v.get_double()) == v.get_double();
}

bool HasType(const json::value& v, std::string_view type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "number") return v.is_number();
  if (type == "integer") return IsInteger(v);
  if (type == "boolean") return v.is_bool();
  if (type == "null") return v.is_null();
  return false;
}

// Characters as JSON Schema counts a string's length: Unicode code points, not bytes.
std::size_t CodePoints(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string Key(const std::string& path, std::string_view key) {
  return path + "." + std::string(key);
}

std::string Number(double d) {
  if (std::floor(d) == d && std::abs(d) < 1e15) return std::to_string(static_cast<std::int64_t>(d));
  std::string s = std::to_string(d);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  return s;
}

// What every validator of one validation shares: the root (for $ref), the steps left, and the
// patterns compiled so far.
struct Walk {
  const json::value& root;
  std::size_t steps_left = kMaxValidationSteps;
  std::unordered_map<std::string, std::unique_ptr<re2::RE2>> patterns;

  const re2::RE2& Pattern(const std::string& text) {
    auto& compiled = patterns[text];
    if (!compiled) {
      re2::RE2::Options options;
      options.set_log_errors(false);
      options.set_max_mem(1 << 20);
      compiled = std::make_unique<re2::RE2>(text, options);
    }
    return *compiled;
  }
};

class Validator {
 public:
  Validator(Walk& walk, std::size_t limit) : walk_(walk), limit_(limit) {}

  // `hops`: the $ref followed since the walk last descended into the value.
  void Check(const json::value& schema, const json::value& v, const std::string& path,
             int hops = 0) {
    if (Full()) return;
    if (walk_.steps_left == 0) {
      Add(path, "is too costly to validate against this schema");
      return;
    }
    --walk_.steps_left;
    if (schema.is_bool()) {
      if (!schema.get_bool()) Add(path, "is not allowed here");
      return;
    }
    const json::object& s = schema.get_object();
    if (const auto* ref = s.if_contains("$ref"); ref && ref->is_string()) {
      const json::value* target = ResolveRef(walk_.root, ref->get_string());
      if (target == nullptr || hops >= kMaxRefHops) {
        Add(path, "cannot be validated: the schema's $ref does not end");
        return;
      }
      Check(*target, v, path, hops + 1);
    }
    if (const auto* type = s.if_contains("type")) CheckType(*type, v, path);
    if (const auto* options = s.if_contains("enum")) {
      bool any = false;
      for (const auto& option : options->get_array()) any = any || JsonEqual(option, v);
      if (!any) Add(path, "must be one of the schema's enum values");
    }
    if (const auto* constant = s.if_contains("const"); constant && !JsonEqual(*constant, v))
      Add(path, "must be the schema's const value");
    if (const auto* any_of = s.if_contains("anyOf")) CheckAnyOf(any_of->get_array(), v, path, hops);
    if (const auto* one_of = s.if_contains("oneOf")) CheckOneOf(one_of->get_array(), v, path, hops);
    if (const auto* all_of = s.if_contains("allOf")) {
      for (const auto& part : all_of->get_array()) Check(part, v, path, hops + 1);
    }
    if (v.is_object()) CheckObject(s, v.get_object(), path);
    if (v.is_array()) CheckArray(s, v.get_array(), path);
    if (v.is_string()) CheckString(s, v.get_string(), path);
    if (const auto number = NumberOf(v)) CheckNumber(s, *number, path);
  }

  std::vector<Violation> Take() { return std::move(found_); }

 private:
  bool Full() const { return found_.size() >= limit_; }
  void Add(const std::string& path, std::string message) {
    if (!Full()) found_.push_back(Violation{path, std::move(message)});
  }

  void CheckType(const json::value& type, const json::value& v, const std::string& path) {
    if (type.is_string()) {
      if (!HasType(v, type.get_string()))
        Add(path, "must be of type " + std::string(type.get_string()));
      return;
    }
    std::string names;
    for (const auto& t : type.get_array()) {
      if (HasType(v, t.get_string())) return;
      names += (names.empty() ? "" : " or ") + std::string(t.get_string());
    }
    Add(path, "must be of type " + names);
  }

  // Whether `v` meets `option`, without reporting where it does not.
  bool Meets(const json::value& option, const json::value& v, const std::string& path, int hops) {
    Validator trial(walk_, 1);
    trial.Check(option, v, path, hops + 1);
    if (walk_.steps_left == 0 && !trial.found_.empty()) Add(path, trial.found_.front().message);
    return trial.found_.empty();
  }

  void CheckAnyOf(const json::array& options, const json::value& v, const std::string& path,
                  int hops) {
    for (const auto& option : options)
      if (Meets(option, v, path, hops)) return;
    Add(path, "must match at least one of the schema's anyOf options");
  }

  void CheckOneOf(const json::array& options, const json::value& v, const std::string& path,
                  int hops) {
    std::size_t met = 0;
    for (const auto& option : options)
      if (Meets(option, v, path, hops) && ++met > 1) break;
    if (met == 0) Add(path, "must match one of the schema's oneOf options");
    if (met > 1) Add(path, "must match only one of the schema's oneOf options");
  }

  void CheckObject(const json::object& s, const json::object& o, const std::string& path) {
    if (const auto* min = s.if_contains("minProperties");
        min && static_cast<double>(o.size()) < *NumberOf(*min))
      Add(path, "must have at least " + Number(*NumberOf(*min)) + " properties");
    if (const auto* max = s.if_contains("maxProperties");
        max && static_cast<double>(o.size()) > *NumberOf(*max))
      Add(path, "must have at most " + Number(*NumberOf(*max)) + " properties");
    if (const auto* required = s.if_contains("required")) {
      for (const auto& name : required->get_array())
        if (!o.contains(name.get_string())) Add(Key(path, name.get_string()), "is required");
    }
    const json::object* properties = nullptr;
    if (const auto* p = s.if_contains("properties")) properties = &p->get_object();
    const json::value* additional = s.if_contains("additionalProperties");
    for (const auto& kv : o) {
      const json::value* sub = properties ? properties->if_contains(kv.key()) : nullptr;
      if (sub == nullptr) sub = additional;
      if (sub == nullptr) continue;
      if (sub->is_bool() && !sub->get_bool() && sub == additional) {
        Add(Key(path, kv.key()), "is not a property the schema allows");
        continue;
      }
      Check(*sub, kv.value(), Key(path, kv.key()));
    }
  }

  void CheckArray(const json::object& s, const json::array& a, const std::string& path) {
    if (const auto* min = s.if_contains("minItems");
        min && static_cast<double>(a.size()) < *NumberOf(*min))
      Add(path, "must have at least " + Number(*NumberOf(*min)) + " items");
    if (const auto* max = s.if_contains("maxItems");
        max && static_cast<double>(a.size()) > *NumberOf(*max))
      Add(path, "must have at most " + Number(*NumberOf(*max)) + " items");
    if (const auto* unique = s.if_contains("uniqueItems");
        unique && unique->is_bool() && unique->get_bool()) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (walk_.steps_left == 0) return;
          --walk_.steps_left;
          if (JsonEqual(a[i], a[j])) {
            Add(path + "[" + std::to_string(i) + "]", "repeats an earlier item (uniqueItems)");
            i = a.size();
            break;
          }
        }
      }
    }
    if (const auto* items = s.if_contains("items")) {
      for (std::size_t i = 0; i < a.size(); ++i)
        Check(*items, a[i], path + "[" + std::to_string(i) + "]");
    }
  }

  void CheckString(const json::object& s, json::string_view text, const std::string& path) {
    const std::size_t length = CodePoints(text);
    if (const auto* min = s.if_contains("minLength");
        min && static_cast<double>(length) < *NumberOf(*min))
      Add(path, "must be at least " + Number(*NumberOf(*min)) + " characters long");
    if (const auto* max = s.if_contains("maxLength");
        max && static_cast<double>(length) > *NumberOf(*max))
      Add(path, "must be at most " + Number(*NumberOf(*max)) + " characters long");
    if (const auto* pattern = s.if_contains("pattern"); pattern && pattern->is_string()) {
      const re2::RE2& compiled = walk_.Pattern(std::string(pattern->get_string()));
      if (!compiled.ok() ||
          !re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), compiled))
        Add(path, "must match the pattern " + std::string(pattern->get_string()));
    }
    if (const auto* format = s.if_contains("format"); format && format->is_string()) {
      if (!MatchesFormat(format->get_string(), text))
        Add(path, "must be a valid " + std::string(format->get_string()));
    }
  }

  void CheckNumber(const json::object& s, double n, const std::string& path) {
    const auto bound = [&](std::string_view keyword) -> std::optional<double> {
      const auto* b = s.if_contains(keyword);
      return b ? NumberOf(*b) : std::nullopt;
    };
    if (const auto b = bound("minimum"); b && n < *b) Add(path, "must be at least " + Number(*b));
    if (const auto b = bound("maximum"); b && n > *b) Add(path, "must be at most " + Number(*b));
    if (const auto b = bound("exclusiveMinimum"); b && n <= *b)
      Add(path, "must be greater than " + Number(*b));
    if (const auto b = bound("exclusiveMaximum"); b && n >= *b)
      Add(path, "must be less than " + Number(*b));
    if (const auto m = bound("multipleOf"); m && *m > 0) {
      const double quotient = n / *m;
      if (!std::isfinite(quotient) || std::abs(quotient - std::round(quotient)) > 1e-9)
        Add(path, "must be a multiple of " + Number(*m));
    }
  }

  Walk& walk_;
  std::size_t limit_;
  std::vector<Violation> found_;
};

}  // namespace

bool JsonEqual(const json::value& a, const json::value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_double() || b.is_double()) return NumberOf(a) == NumberOf(b);
    if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
    if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
    const std::int64_t signed_one = a.is_int64() ? a.get_int64() : b.get_int64();
    const std::uint64_t unsigned_one = a.is_uint64() ? a.get_uint64() : b.get_uint64();
    return signed_one >= 0 && static_cast<std::uint64_t>(signed_one) == unsigned_one;
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const auto &x = a.get_array(), &y = b.get_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!JsonEqual(x[i], y[i])) return false;
    return true;
  }
  if (a.is_object()) {
    const auto &x = a.get_object(), &y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& kv : x) {
      const auto* other = y.if_contains(kv.key());
      if (other == nullptr || !JsonEqual(kv.value(), *other)) return false;
    }
    return true;
  }
  return a == b;
}

std::vector<Violation> Validate(const json::value& schema, const json::value& value,
                                std::size_t limit) {
  Walk walk{schema};
  Validator validator(walk, limit);
  validator.Check(schema, value, "$");
  return validator.Take();
}

}  // namespace agentgate::schema
