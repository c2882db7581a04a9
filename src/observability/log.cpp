#include "observability/log.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace agentgate::log {
namespace {

std::atomic<bool> g_enabled{true};
std::mutex g_mutex;

void AppendEscaped(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string Timestamp() {
  const auto now = std::chrono::system_clock::now();
  const auto t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

void SetEnabled(bool enabled) {
  g_enabled = enabled;
}

void Write(std::string_view level, std::string_view event, std::initializer_list<Field> fields) {
  if (!g_enabled) return;
  std::string line = "{\"ts\":\"" + Timestamp() + "\",\"level\":";
  AppendEscaped(line, level);
  line += ",\"event\":";
  AppendEscaped(line, event);
  for (const auto& [key, value] : fields) {
    line += ',';
    AppendEscaped(line, key);
    line += ':';
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string_view>)
            AppendEscaped(line, v);
          else if constexpr (std::is_same_v<T, bool>)
            line += v ? "true" : "false";
          else
            line += std::to_string(v);
        },
        value);
  }
  line += "}\n";
  std::lock_guard lock(g_mutex);
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

}  // namespace agentgate::log
