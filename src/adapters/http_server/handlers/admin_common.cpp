#include "adapters/http_server/handlers/admin_common.hpp"

#include "crypto/crypto.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <ctime>

namespace agentgate::http {

Result<void> RequireAdmin(const Request& request, const RouteDeps& deps) {
  if (!deps.admin_token_hash) {
    return MakeError(ErrorCode::kUnauthenticated,
                     "the admin API is disabled: no admin token is configured");
  }
  const auto header = request.Header("authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (!header || !header->starts_with(kBearer)) {
    return MakeError(ErrorCode::kUnauthenticated,
                     "an 'Authorization: Bearer <admin token>' header is required");
  }
  // Compare hashes: equal length, so the comparison time says nothing about the token.
  if (!crypto::ConstantTimeEquals(crypto::Sha256(header->substr(kBearer.size())),
                                  *deps.admin_token_hash)) {
    return MakeError(ErrorCode::kUnauthenticated, "the admin token was refused");
  }
  return {};
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
