#include "adapters/http_server/handlers/admin_common.hpp"

#include "crypto/crypto.hpp"
#include "domain/auth/api_token.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <charconv>
#include <ctime>

namespace agentgate::http {

Result<void> RequireConsoleSession(const Request& request, ConsoleSessions& sessions,
                                   std::string_view session_id) {
  const auto session = sessions.Find(session_id);
  if (!session) {
    return MakeError(ErrorCode::kUnauthenticated, "the console session has ended: sign in again");
  }
  if (request.method == "GET" || request.method == "HEAD") return {};
  // A cross-site page can make the browser send the cookie (were SameSite ignored) but cannot
  // read the token, which only the console's own script received.
  const auto csrf = request.Header("x-csrf-token");
  if (!csrf ||
      !crypto::ConstantTimeEquals(crypto::Sha256(*csrf), crypto::Sha256(session->csrf_token))) {
    return MakeError(ErrorCode::kForbidden,
                     "a console request that changes state needs the session's X-CSRF-Token");
  }
  return {};
}

Result<void> RequireAdmin(const Request& request, const RouteDeps& deps) {
  if (!deps.admin_token_hash) {
    return MakeError(ErrorCode::kUnauthenticated,
                     "the admin API is disabled: no admin token is configured");
  }
  const auto header = request.Header("authorization");
  if (!header) {
    if (const auto session_id = request.Cookie(kConsoleCookie)) {
      return RequireConsoleSession(request, deps.console, *session_id);
    }
  }
  const auto presented = header ? BearerCredential(*header) : std::nullopt;
  if (!presented) {
    return MakeError(ErrorCode::kUnauthenticated,
                     "an 'Authorization: Bearer <admin token>' header is required");
  }
  // Compare hashes: equal length, so the comparison time says nothing about the token.
  if (!crypto::ConstantTimeEquals(crypto::Sha256(*presented), *deps.admin_token_hash)) {
    return MakeError(ErrorCode::kUnauthenticated, "the admin token was refused");
  }
  return {};
}

Result<std::optional<std::int64_t>> PositiveInteger(const std::optional<std::string>& text,
                                                    std::string_view field) {
  if (!text) return std::optional<std::int64_t>{};
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc{} || end != text->data() + text->size() || value < 1)
    return InvalidField(field, "must be a positive integer");
  return std::optional<std::int64_t>(value);
}

Result<int> PageSize(const Request& request, int default_size, int max_size) {
  AG_TRY(const auto limit, PositiveInteger(request.QueryParam("limit"), "limit"));
  return static_cast<int>(std::min<std::int64_t>(limit.value_or(default_size), max_size));
}

std::string IsoTime(std::int64_t epoch_ms) {
  const std::time_t t = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

boost::json::value OrgJson(const OrgRecord& org) {
  boost::json::object o{
      {"id", org.id}, {"name", org.name}, {"created_at", IsoTime(org.created_at_ms)}};
  o["monthly_spend_limit_usd"] =
      org.monthly_spend_limit_usd ? boost::json::value(*org.monthly_spend_limit_usd) : nullptr;
  return o;
}

boost::json::object TokenJson(const TokenRecord& token) {
  boost::json::array envs;
  for (const auto& e : token.environments) envs.emplace_back(e);
  boost::json::object o{{"id", token.id},
                        {"name", token.name},
                        {"created_at", IsoTime(token.created_at_ms)},
                        {"revoked", token.revoked}};
  o["environments"] = token.environments.empty() ? boost::json::value(nullptr)
                                                 : boost::json::value(std::move(envs));
  return o;
}

boost::json::value TurnJson(const TurnRecord& turn) {
  boost::system::error_code ec;
  auto transcript = boost::json::parse(turn.transcript_json, ec);
  boost::json::object item{{"id", turn.id},
                           {"agent_id", turn.agent_id},
                           {"env", turn.env},
                           {"version", turn.version},
                           {"started_at", IsoTime(turn.started_at_ms)},
                           {"duration_ms", turn.duration_ms},
                           {"blocked", turn.blocked},
                           {"model_calls", turn.model_calls},
                           {"input_tokens", turn.input_tokens},
                           {"output_tokens", turn.output_tokens},
                           {"cost_usd", turn.cost_usd}};
  item["conversation_id"] = turn.conversation_id.empty() ? boost::json::value(nullptr)
                                                         : boost::json::value(turn.conversation_id);
  item["terminated_reason"] =
      turn.stop_reason.empty() ? boost::json::value(nullptr) : boost::json::value(turn.stop_reason);
  item["transcript"] = ec ? boost::json::value(nullptr) : std::move(transcript);
  return item;
}

}  // namespace agentgate::http
