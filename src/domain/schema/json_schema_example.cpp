// ExampleOf and SmallestAnswerBytes (domain/schema/json_schema.hpp): what an answer to a schema
// looks like, and how small it can be.
#include "domain/schema/json_schema.hpp"

#include "domain/json_text.hpp"

#include <boost/json/object.hpp>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

namespace agentgate::schema {
namespace {

namespace json = boost::json;

double AsDouble(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return v.is_double() ? v.get_double() : 0;
}

// A checked count bound (a length, a number of items: 0 to 1,000,000), as a size.
std::size_t CountAt(const json::object& s, std::string_view key, std::size_t otherwise) {
  const auto* v = s.if_contains(key);
  return v != nullptr && v->is_number() ? static_cast<std::size_t>(AsDouble(*v)) : otherwise;
}

// The schema's type as an example reads it: the first listed, else what its keywords suggest.
std::string_view TypeOf(const json::object& s) {
  if (const auto* t = s.if_contains("type")) {
    if (t->is_string()) return t->get_string();
    if (t->is_array() && !t->get_array().empty() && t->get_array()[0].is_string())
      return t->get_array()[0].get_string();
  }
  return s.contains("properties") ? "object" : s.contains("items") ? "array" : "string";
}

double NumberIn(const json::object& s, bool integer) {
  const auto bound = [&](std::string_view k) -> std::optional<double> {
    const auto* b = s.if_contains(k);
    return b && b->is_number() ? std::optional<double>(AsDouble(*b)) : std::nullopt;
  };
  double low = -1e300, high = 1e300;
  if (auto b = bound("minimum")) low = *b;
  if (auto b = bound("exclusiveMinimum"))
    low = std::max(low, integer ? std::floor(*b) + 1 : *b + 1);
  if (auto b = bound("maximum")) high = *b;
  if (auto b = bound("exclusiveMaximum"))
    high = std::min(high, integer ? std::ceil(*b) - 1 : *b - 0.5);
  double n = std::clamp(0.0, low, std::max(low, high));
  return integer ? std::ceil(n) : n;
}

// At most this many items an example array holds (arrays nest): the smallest answer holds its
// minItems, whatever they are.
constexpr std::size_t kExampleItems = 16;

// Past this many $ref in a row an example holds only what is required there: a recursive
// schema's optional parts end.
constexpr int kExampleRefDepth = 4;

// What an example may still weigh; once spent, building stops and answers nothing more.
struct Budget {
  std::size_t left;
  const json::value& root;  // what $ref names
  bool Spent() const { return left == 0; }
  void Take(std::size_t bytes) { left = bytes >= left ? 0 : left - bytes; }
};

json::value Example(const json::value& schema, Budget& budget, bool smallest, int refs = 0) {
  budget.Take(1);
  if (budget.Spent() || !schema.is_object()) return json::object{};
  const json::object& s = schema.get_object();
  if (const auto* ref = s.if_contains("$ref"); ref && ref->is_string()) {
    const json::value* target = ResolveRef(budget.root, ref->get_string());
    if (target == nullptr || refs >= kMaxRefHops) return json::object{};
    return Example(*target, budget, smallest || refs >= kExampleRefDepth, refs + 1);
  }
  if (const auto* c = s.if_contains("const")) return *c;
  if (const auto* e = s.if_contains("enum")) return e->get_array().front();
  for (const char* options : {"anyOf", "oneOf", "allOf"}) {
    if (const auto* listed = s.if_contains(options))
      return Example(listed->get_array().front(), budget, smallest, refs);
  }
  const std::string_view type = TypeOf(s);
  if (type == "object") {
    json::object out;
    const auto* properties = s.if_contains("properties");
    const auto* required = s.if_contains("required");
    if (properties == nullptr) return out;
    for (const auto& property : properties->get_object()) {
      if (budget.Spent()) break;
      const bool needed =
          required != nullptr &&
          std::any_of(required->get_array().begin(), required->get_array().end(),
                      [&](const json::value& name) {
                        return name.is_string() && name.get_string() == property.key();
                      });
      if (smallest && !needed) continue;
      budget.Take(property.key().size());
      out.emplace(property.key(), Example(property.value(), budget, smallest, refs));
    }
    return out;
  }
  if (type == "array") {
    const std::size_t fewest = CountAt(s, "minItems", 0);
    std::size_t count =
        smallest ? fewest : std::min(std::max<std::size_t>(1, fewest), kExampleItems);
    count = std::min(count, CountAt(s, "maxItems", count));
    const json::value items = s.contains("items") ? s.at("items") : json::value(json::object{});
    json::array out;
    for (std::size_t i = 0; i < count && !budget.Spent(); ++i)
      out.push_back(Example(items, budget, smallest, refs));
    return out;
  }
  if (type == "integer") {
    const double n = NumberIn(s, true);
    // Past 2^53 a double names no integer exactly: such a bound's example stays a double.
    if (!std::isfinite(n) || std::abs(n) > 9e15) return n;
    return static_cast<std::int64_t>(n);
  }
  if (type == "number") return NumberIn(s, false);
  if (type == "boolean") return true;
  if (type == "null") return nullptr;
  // A format's fixed example; a pattern's is not made (an answer that cannot meet it is
  // invalid_output, docs/structured-output.md).
  const auto* format = s.if_contains("format");
  std::string text(format != nullptr && format->is_string() ? FormatExample(format->get_string())
                                                            : "example");
  const std::size_t shortest = CountAt(s, "minLength", 0);
  budget.Take(shortest);
  if (budget.Spent()) return json::value("");
  if (text.size() < shortest) text.append(shortest - text.size(), 'x');
  text.resize(std::min(text.size(), CountAt(s, "maxLength", text.size())));
  return json::value(text);
}

// Sums that stop at `stop`: no count overflows, and a huge schema's walk ends early.
std::size_t Add(std::size_t a, std::size_t b, std::size_t stop) {
  return a >= stop || b >= stop - a ? stop : a + b;
}
std::size_t Times(std::size_t n, std::size_t each, std::size_t stop) {
  if (n == 0 || each == 0) return 0;
  return each > stop / n ? stop : n * each;
}

std::size_t WrittenSize(const json::value& v) {
  return json_text::Write(v).size();
}

// One walk of SmallestAnswerBytes: what $ref names, each schema's size once worked out (a $ref
// used in many places is walked once), and the references being expanded (one met again is a
// cycle: no finite answer through it).
struct SmallestWalk {
  const json::value& root;
  std::size_t stop;
  std::unordered_map<const json::value*, std::size_t> sizes;
  std::vector<const json::value*> expanding;
  std::size_t cycles = 0;                        // met so far: a size found through one is not kept
  std::size_t steps_left = kMaxValidationSteps;  // a walk past it answers `stop`
};

std::size_t Smallest(const json::value& schema, SmallestWalk& walk);

std::size_t SmallestOfType(const json::object& s, std::string_view type, SmallestWalk& walk) {
  const std::size_t stop = walk.stop;
  if (type == "object") {
    std::size_t total = 2;  // {}
    const auto* required = s.if_contains("required");
    if (required == nullptr) return total;
    const auto* properties = s.if_contains("properties");
    for (const auto& name : required->get_array()) {
      const json::value* property = nullptr;
      if (properties != nullptr) property = properties->get_object().if_contains(name.get_string());
      // "name": value, with a comma before all but the first
      total = Add(total, name.get_string().size() + 4, stop);
      total = Add(total, property != nullptr ? Smallest(*property, walk) : 1, stop);
      if (total >= stop) return stop;
    }
    return total;
  }
  if (type == "array") {
    const std::size_t fewest = CountAt(s, "minItems", 0);
    if (fewest == 0) return 2;
    const auto* items = s.if_contains("items");
    const std::size_t each = items != nullptr ? Smallest(*items, walk) : 1;
    return Add(2, Times(fewest, Add(each, 1, stop), stop), stop);  // [a,b]
  }
  if (type == "string") return Add(2, CountAt(s, "minLength", 0), stop);  // "..."
  if (type == "boolean" || type == "null") return 4;                      // true, null
  return 1;                                                               // a digit
}

std::size_t SmallestOf(const json::value& schema, SmallestWalk& walk) {
  const std::size_t stop = walk.stop;
  if (!schema.is_object()) return schema.is_bool() && !schema.get_bool() ? stop : 1;
  const json::object& s = schema.get_object();
  std::size_t least = 0;  // what every part of an allOf or a $ref asks at the least
  if (const auto* ref = s.if_contains("$ref"); ref && ref->is_string()) {
    const json::value* target = ResolveRef(walk.root, ref->get_string());
    if (target == nullptr) return stop;
    if (std::find(walk.expanding.begin(), walk.expanding.end(), target) != walk.expanding.end()) {
      ++walk.cycles;
      return stop;  // required through itself: no finite answer this way
    }
    walk.expanding.push_back(target);
    least = Smallest(*target, walk);
    walk.expanding.pop_back();
  }
  if (const auto* all_of = s.if_contains("allOf")) {
    for (const auto& part : all_of->get_array()) least = std::max(least, Smallest(part, walk));
  }
  if (least >= stop) return stop;
  if (const auto* c = s.if_contains("const"))
    return std::max(least, std::min(stop, WrittenSize(*c)));
  std::size_t best = stop;
  if (const auto* e = s.if_contains("enum")) {
    for (const auto& option : e->get_array()) best = std::min(best, WrittenSize(option));
    return std::max(least, best);
  }
  for (const char* options : {"anyOf", "oneOf"}) {
    if (const auto* listed = s.if_contains(options)) {
      for (const auto& option : listed->get_array()) best = std::min(best, Smallest(option, walk));
      return std::max(least, best);
    }
  }
  const auto* type = s.if_contains("type");
  if (type != nullptr && type->is_array()) {
    for (const auto& t : type->get_array())
      best = std::min(best, SmallestOfType(s, t.get_string(), walk));
    return std::max(least, best);
  }
  if (type == nullptr && !s.contains("properties") && !s.contains("items"))
    return std::max<std::size_t>(least, 1);  // any value
  return std::max(least, SmallestOfType(s, TypeOf(s), walk));
}

std::size_t Smallest(const json::value& schema, SmallestWalk& walk) {
  if (const auto known = walk.sizes.find(&schema); known != walk.sizes.end()) return known->second;
  if (walk.steps_left == 0) return walk.stop;
  --walk.steps_left;
  const std::size_t cycles = walk.cycles;
  const std::size_t size = SmallestOf(schema, walk);
  if (walk.cycles == cycles) walk.sizes.emplace(&schema, size);
  return size;
}

}  // namespace

json::value ExampleOf(const json::value& schema) {
  Budget budget{kMaxAnswerBytes, schema};
  json::value full = Example(schema, budget, false);
  if (!budget.Spent()) return full;
  Budget smallest{2 * kMaxAnswerBytes, schema};
  return Example(schema, smallest, true);
}

std::size_t SmallestAnswerBytes(const json::value& schema, std::size_t stop) {
  SmallestWalk walk{schema, stop, {}, {}, 0, kMaxValidationSteps};
  return Smallest(schema, walk);
}

}  // namespace agentgate::schema
