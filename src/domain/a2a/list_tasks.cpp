#include "domain/a2a/list_tasks.hpp"

#include <boost/json/object.hpp>

#include <charconv>
#include <chrono>

namespace agentgate::a2a {

namespace json = boost::json;

namespace {

ProtocolError Invalid(const std::string& field, std::string_view problem) {
  return ProtocolError{Fault::kInvalidParams, "field '" + field + "': " + std::string(problem),
                       field};
}

// A field's text, or its integer or boolean as a query writes it; none when absent or null.
std::optional<std::string> TextOf(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (v->is_string()) return std::string(v->get_string());
  if (v->is_int64()) return std::to_string(v->get_int64());
  if (v->is_uint64()) return std::to_string(v->get_uint64());
  if (v->is_bool()) return std::string(v->get_bool() ? "true" : "false");
  return std::string("\x01");  // something no field takes
}

std::optional<std::int64_t> IntegerOf(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// TaskState's name as the run outcomes of ListAgentRuns; none for a name that is not a state.
std::optional<std::string> OutcomesOf(std::string_view state) {
  if (state == "TASK_STATE_UNSPECIFIED") return "";
  if (state == "TASK_STATE_SUBMITTED") return ",queued,";
  if (state == "TASK_STATE_WORKING") return ",running,";
  if (state == "TASK_STATE_INPUT_REQUIRED") return ",requires_action,";
  if (state == "TASK_STATE_COMPLETED") return ",completed,";
  if (state == "TASK_STATE_FAILED") return ",failed,stopped,";
  if (state == "TASK_STATE_CANCELED") return ",canceled,";
  if (state == "TASK_STATE_REJECTED" || state == "TASK_STATE_AUTH_REQUIRED") return "-";
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> ParseUtcTimestamp(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fraction]Z
  if (text.size() < 20 || text.back() != 'Z' || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  const auto part = [&text](std::size_t at, std::size_t length) {
    return IntegerOf(text.substr(at, length));
  };
  const auto y = part(0, 4), mo = part(5, 2), d = part(8, 2), h = part(11, 2), mi = part(14, 2),
             s = part(17, 2);
  if (!y || !mo || !d || !h || !mi || !s || *h > 23 || *mi > 59 || *s > 60) return std::nullopt;
  std::int64_t ms = 0;
  const std::string_view rest = text.substr(19, text.size() - 20);
  if (!rest.empty()) {
    if (rest[0] != '.' || rest.size() < 2) return std::nullopt;
    const auto fraction = IntegerOf(rest.substr(1, std::min<std::size_t>(rest.size() - 1, 3)));
    if (!fraction || !IntegerOf(rest.substr(1))) return std::nullopt;
    ms = *fraction;
    for (std::size_t digits = rest.size() - 1; digits < 3; ++digits) ms *= 10;
  }
  const std::chrono::year_month_day day{std::chrono::year(static_cast<int>(*y)),
                                        std::chrono::month(static_cast<unsigned>(*mo)),
                                        std::chrono::day(static_cast<unsigned>(*d))};
  if (!day.ok()) return std::nullopt;
  const auto days = std::chrono::sys_days(day).time_since_epoch().count();
  return ((days * 24 + *h) * 60 + *mi) * 60'000 + *s * 1000 + ms;
}

std::string PageToken(std::int64_t changed_ms, std::string_view run_id) {
  return std::to_string(changed_ms) + "." + std::string(run_id);
}

std::variant<TasksAsked, ProtocolError> ReadListTasks(const json::value& params) {
  if (!params.is_object()) return Invalid("params", "must be a ListTasksRequest object");
  const auto& o = params.get_object();
  TasksAsked asked;
  if (auto context = TextOf(o, "contextId")) asked.context_id = *context;
  if (auto status = TextOf(o, "status")) {
    const auto outcomes = OutcomesOf(*status);
    if (!outcomes) return Invalid("status", "must be a TaskState name, e.g. TASK_STATE_WORKING");
    asked.none = *outcomes == "-";
    if (!asked.none) asked.outcomes = *outcomes;
  }
  if (auto size = TextOf(o, "pageSize")) {
    const auto n = IntegerOf(*size);
    if (!n || *n < 1 || *n > kMaxPageSize)
      return Invalid("pageSize", "must be an integer from 1 to 100");
    asked.page_size = static_cast<int>(*n);
  }
  if (auto token = TextOf(o, "pageToken"); token && !token->empty()) {
    const auto dot = token->find('.');
    const auto at = dot == std::string::npos ? std::nullopt : IntegerOf(token->substr(0, dot));
    if (!at || *at <= 0 || dot + 1 >= token->size())
      return Invalid("pageToken", "is not a token a page of this list gave");
    asked.after_changed_ms = *at;
    asked.after_id = token->substr(dot + 1);
  }
  if (auto length = TextOf(o, "historyLength")) {
    const auto n = IntegerOf(*length);
    if (!n || *n < 0) return Invalid("historyLength", "must be an integer from 0");
  }
  if (auto after = TextOf(o, "statusTimestampAfter")) {
    const auto ms = ParseUtcTimestamp(*after);
    if (!ms)
      return Invalid("statusTimestampAfter",
                     "must be an ISO 8601 UTC time, e.g. 2026-12-07T10:30:00Z");
    asked.changed_after_ms = *ms;
  }
  if (auto include = TextOf(o, "includeArtifacts")) {
    if (*include != "true" && *include != "false")
      return Invalid("includeArtifacts", "must be a boolean");
    asked.include_artifacts = *include == "true";
  }
  return asked;
}

}  // namespace agentgate::a2a
