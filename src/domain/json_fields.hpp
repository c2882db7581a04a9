#pragma once
// Typed reads of JSON request fields that fail with a 400 naming the field's full path.

#include "domain/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate::json_fields {

// "model" + "name" -> "model.name"; an empty prefix yields the key alone.
std::string Join(std::string_view prefix, std::string_view key);

Result<const boost::json::object*> AsObject(const boost::json::value& v, std::string_view path);

// Rejects any key not in `allowed`, so typos in a request are reported, not ignored.
Result<void> RejectUnknownKeys(const boost::json::object& o, std::string_view path,
                               std::initializer_list<std::string_view> allowed);

Result<std::string> RequiredString(const boost::json::object& o, std::string_view key,
                                   std::string_view path);
// Absent or null -> nullopt.
Result<std::optional<std::string>> OptionalString(const boost::json::object& o,
                                                  std::string_view key, std::string_view path);
Result<std::optional<bool>> OptionalBool(const boost::json::object& o, std::string_view key,
                                         std::string_view path);
Result<std::optional<double>> OptionalNumber(const boost::json::object& o, std::string_view key,
                                             std::string_view path);

Result<std::optional<std::int64_t>> OptionalInteger(const boost::json::object& o,
                                                    std::string_view key, std::string_view path);

}  // namespace agentgate::json_fields
