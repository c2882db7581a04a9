#include "domain/json_text.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

namespace agentgate::json_text {
namespace {

void AppendDouble(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d);
  out.append(buffer, ec == std::errc() ? end : buffer);
}

void AppendString(std::string& out, boost::json::string_view s) {
  out += boost::json::serialize(s);
}

void Append(std::string& out, const boost::json::value& v, bool sort_keys) {
  switch (v.kind()) {
    case boost::json::kind::object: {
      const auto& o = v.get_object();
      std::vector<const boost::json::key_value_pair*> items;
      items.reserve(o.size());
      for (const auto& kv : o) items.push_back(&kv);
      if (sort_keys) {
        std::sort(items.begin(), items.end(),
                  [](const auto* a, const auto* b) { return a->key() < b->key(); });
      }
      out += '{';
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ',';
        AppendString(out, items[i]->key());
        out += ':';
        Append(out, items[i]->value(), sort_keys);
      }
      out += '}';
      return;
    }
    case boost::json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& item : v.get_array()) {
        if (!first) out += ',';
        first = false;
        Append(out, item, sort_keys);
      }
      out += ']';
      return;
    }
    case boost::json::kind::string:
      AppendString(out, v.get_string());
      return;
    case boost::json::kind::double_:
      AppendDouble(out, v.get_double());
      return;
    default:  // null, bool and integers: Boost.JSON's text is already plain
      out += boost::json::serialize(v);
  }
}

}  // namespace

std::string Write(const boost::json::value& value) {
  std::string out;
  Append(out, value, false);
  return out;
}

std::string WriteCanonical(const boost::json::value& value) {
  std::string out;
  Append(out, value, true);
  return out;
}

}  // namespace agentgate::json_text
