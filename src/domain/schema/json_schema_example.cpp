// ExampleOf and SmallestAnswerBytes (domain/schema/json_schema.hpp): what an answer to a schema
// looks like, and how small it can be.
#include "domain/schema/json_schema.hpp"

#include "domain/json_text.hpp"

#include <boost/json/object.hpp>

#include <algorithm>
#include <cmath>

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

// What an example may still weigh; once spent, building stops and answers nothing more.
struct Budget {
  std::size_t left;
  bool Spent() const { return left == 0; }
  void Take(std::size_t bytes) { left = bytes >= left ? 0 : left - bytes; }
};

json::value Example(const json::value& schema, Budget& budget, bool smallest) {
  budget.Take(1);
  if (budget.Spent() || !schema.is_object()) return json::object{};
  const json::object& s = schema.get_object();
  if (const auto* c = s.if_contains("const")) return *c;
  if (const auto* e = s.if_contains("enum")) return e->get_array().front();
  if (const auto* any_of = s.if_contains("anyOf"))
    return Example(any_of->get_array().front(), budget, smallest);
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
      out.emplace(property.key(), Example(property.value(), budget, smallest));
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
      out.push_back(Example(items, budget, smallest));
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
  std::string text = "example";
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

std::size_t Smallest(const json::value& schema, std::size_t stop);

std::size_t SmallestOfType(const json::object& s, std::string_view type, std::size_t stop) {
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
      total = Add(total, property != nullptr ? Smallest(*property, stop) : 1, stop);
      if (total >= stop) return stop;
    }
    return total;
  }
  if (type == "array") {
    const std::size_t fewest = CountAt(s, "minItems", 0);
    if (fewest == 0) return 2;
    const auto* items = s.if_contains("items");
    const std::size_t each = items != nullptr ? Smallest(*items, stop) : 1;
    return Add(2, Times(fewest, Add(each, 1, stop), stop), stop);  // [a,b]
  }
  if (type == "string") return Add(2, CountAt(s, "minLength", 0), stop);  // "..."
  if (type == "boolean" || type == "null") return 4;                      // true, null
  return 1;                                                               // a digit
}

std::size_t Smallest(const json::value& schema, std::size_t stop) {
  if (!schema.is_object()) return schema.is_bool() && !schema.get_bool() ? stop : 1;
  const json::object& s = schema.get_object();
  if (const auto* c = s.if_contains("const")) return std::min(stop, WrittenSize(*c));
  std::size_t best = stop;
  if (const auto* e = s.if_contains("enum")) {
    for (const auto& option : e->get_array()) best = std::min(best, WrittenSize(option));
    return best;
  }
  if (const auto* any_of = s.if_contains("anyOf")) {
    for (const auto& option : any_of->get_array()) best = std::min(best, Smallest(option, stop));
    return best;
  }
  const auto* type = s.if_contains("type");
  if (type != nullptr && type->is_array()) {
    for (const auto& t : type->get_array())
      best = std::min(best, SmallestOfType(s, t.get_string(), stop));
    return best;
  }
  if (type == nullptr && !s.contains("properties") && !s.contains("items")) return 1;  // any value
  return SmallestOfType(s, TypeOf(s), stop);
}

}  // namespace

json::value ExampleOf(const json::value& schema) {
  Budget budget{kMaxAnswerBytes};
  json::value full = Example(schema, budget, false);
  if (!budget.Spent()) return full;
  Budget smallest{2 * kMaxAnswerBytes};
  return Example(schema, smallest, true);
}

std::size_t SmallestAnswerBytes(const json::value& schema, std::size_t stop) {
  return Smallest(schema, stop);
}

}  // namespace agentgate::schema
