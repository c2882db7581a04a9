#include "domain/json_fields.hpp"

#include <algorithm>
#include <cmath>

namespace agentgate::json_fields {

std::string Join(std::string_view prefix, std::string_view key) {
  if (prefix.empty()) return std::string(key);
  std::string out(prefix);
  out += '.';
  out += key;
  return out;
}

Result<const boost::json::object*> AsObject(const boost::json::value& v, std::string_view path) {
  if (!v.is_object()) return InvalidField(path.empty() ? "body" : path, "must be a JSON object");
  return &v.get_object();
}

Result<void> RejectUnknownKeys(const boost::json::object& o, std::string_view path,
                               std::initializer_list<std::string_view> allowed) {
  for (const auto& kv : o) {
    if (std::find(allowed.begin(), allowed.end(), std::string_view(kv.key())) == allowed.end()) {
      return InvalidField(Join(path, kv.key()), "unknown field");
    }
  }
  return {};
}

Result<std::string> RequiredString(const boost::json::object& o, std::string_view key,
                                   std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return InvalidField(Join(path, key), "is required");
  if (!v->is_string()) return InvalidField(Join(path, key), "must be a string");
  return std::string(v->get_string());
}

Result<std::optional<std::string>> OptionalString(const boost::json::object& o,
                                                  std::string_view key, std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<std::string>{};
  if (!v->is_string()) return InvalidField(Join(path, key), "must be a string or null");
  return std::optional<std::string>(std::string(v->get_string()));
}

Result<std::optional<bool>> OptionalBool(const boost::json::object& o, std::string_view key,
                                         std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<bool>{};
  if (!v->is_bool()) return InvalidField(Join(path, key), "must be a boolean");
  return std::optional<bool>(v->get_bool());
}

Result<std::optional<double>> OptionalNumber(const boost::json::object& o, std::string_view key,
                                             std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<double>{};
  if (!v->is_number()) return InvalidField(Join(path, key), "must be a number");
  const double d = v->to_number<double>();
  if (!std::isfinite(d)) return InvalidField(Join(path, key), "must be a finite number");
  return std::optional<double>(d);
}

Result<std::optional<std::int64_t>> OptionalInteger(const boost::json::object& o,
                                                    std::string_view key, std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<std::int64_t>{};
  if (v->is_int64()) return std::optional<std::int64_t>(v->get_int64());
  if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return std::optional<std::int64_t>(static_cast<std::int64_t>(v->get_uint64()));
  }
  if (v->is_double()) {
    const double d = v->get_double();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) {
      return std::optional<std::int64_t>(static_cast<std::int64_t>(d));
    }
  }
  return InvalidField(Join(path, key), "must be an integer");
}

}  // namespace agentgate::json_fields
