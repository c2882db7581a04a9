#include "app/mcp/request_state.hpp"

#include "app/seal_contexts.hpp"
#include "domain/json_text.hpp"

#include <boost/json/parse.hpp>

namespace agentgate {

namespace json = boost::json;

namespace {

Error Unusable(std::string_view why) {
  return InvalidField("params.requestState", why);
}

std::string Text(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace

std::string McpRequestStates::Seal(McpRequestState state) const {
  const json::object plain{{"run", state.run_id},
                           {"tool", state.agent_id},
                           {"org", state.caller.org_id},
                           {"env", state.caller.env},
                           {"token", state.caller.token_id},
                           {"exp", clock_.NowMs() + lifetime_.count() * 1000},
                           {"needs", mcp::NeedsJson(state.needs)}};
  return crypto::Base64Url(crypto::Seal(*key_, json_text::Write(plain), McpRequestStateContext()));
}

Result<McpRequestState> McpRequestStates::Open(std::string_view sealed,
                                               const Caller& caller) const {
  if (!key_) return Unusable("cannot be opened here: no master key is configured");
  const auto raw = crypto::FromBase64Url(sealed);
  if (!raw) return Unusable("is not one this server gave");
  auto opened = crypto::Open(*key_, *raw, McpRequestStateContext());
  if (!opened) return Unusable("is not one this server gave");
  boost::system::error_code ec;
  const json::value parsed = json::parse(*opened, ec);
  if (ec || !parsed.is_object()) return Unusable("is not one this server gave");
  const auto& o = parsed.get_object();
  McpRequestState state;
  state.run_id = Text(o, "run");
  state.agent_id = Text(o, "tool");
  state.caller = Caller{Text(o, "org"), Text(o, "env"), Text(o, "token")};
  const auto* exp = o.if_contains("exp");
  state.expires_at_ms = exp != nullptr && exp->is_int64() ? exp->get_int64() : 0;
  // Only the client it was given to may echo it.
  if (state.caller.org_id != caller.org_id || state.caller.env != caller.env ||
      state.caller.token_id != caller.token_id)
    return Unusable("was given to another caller");
  if (state.expires_at_ms <= clock_.NowMs()) return Unusable("has expired");
  const auto* needs = o.if_contains("needs");
  if (needs == nullptr) return Unusable("is not one this server gave");
  AG_TRY(state.needs, mcp::ParseNeeds(*needs));
  return state;
}

}  // namespace agentgate
