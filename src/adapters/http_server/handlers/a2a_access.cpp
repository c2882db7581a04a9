// Who may call an agent's A2A interface (docs/a2a.md, "Pointing a client at an agent"): an API
// key, the fl-api headers or an access token with scope a2a, of the interface's organization and
// environment; and the card, anonymously for a discoverable agent.
#include "adapters/http_server/handlers/a2a_operations.hpp"
#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/handlers/oauth_common.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/a2a/push_configs.hpp"
#include "crypto/crypto.hpp"
#include "domain/a2a/agent_card.hpp"
#include "domain/admin/names.hpp"
#include "domain/auth/api_token.hpp"
#include "domain/auth/oauth_metadata.hpp"
#include "domain/json_text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;
using a2a::Fault;
using a2a::ProtocolError;

namespace {

// A 401's challenge (RFC 6750 §3): the scope an access token needs here, and why one presented
// was refused.
std::string A2aChallenge(bool token_presented, const Error& why) {
  std::string challenge = "Bearer scope=\"a2a\"";
  if (token_presented) {
    std::string said;
    for (char c : why.message) said += c == '"' || c == '\\' ? '\'' : c;
    challenge += ", error=\"invalid_token\", error_description=\"" + said + "\"";
  }
  return challenge;
}

}  // namespace

std::optional<std::string> A2aVersionAsked(const Request& r) {
  if (const auto header = r.Header("a2a-version")) return std::string(*header);
  return r.QueryParam("A2A-Version");
}

std::optional<std::pair<std::string, std::optional<std::string>>> A2aAgentOf(
    const std::string& segment) {
  const auto colon = segment.find(':');
  std::string agent = segment.substr(0, colon);
  if (!names::IsValidId(agent)) return std::nullopt;
  if (colon == std::string::npos) return std::pair{std::move(agent), std::optional<std::string>()};
  std::string instance = segment.substr(colon + 1);
  if (!names::IsValidInstanceId(instance)) return std::nullopt;
  return std::pair{std::move(agent), std::optional<std::string>(std::move(instance))};
}

Response A2aRefusal(bool rpc, int status, const ProtocolError& error) {
  if (rpc) return JsonResponse(status, a2a::JsonRpcErrorBody(nullptr, error));
  Response response = JsonResponse(status, a2a::RestErrorBody(error));
  return response;
}

asio::awaitable<std::variant<A2aInterface, Response>> AdmitA2aCaller(RouteDeps& deps, Request& r,
                                                                     bool rpc, bool any_version) {
  const CallerHeaders headers = CallerHeadersOf(r);
  const std::string base = OAuthBase(deps, r).value_or("");
  // A Bearer credential that is not an API key is an access token of ours with scope a2a, or
  // nothing. Two statements, not a conditional of two co_awaits (which GCC 12 miscompiles).
  Result<Caller> caller = Error(ErrorCode::kUnauthenticated, kNoPublicUrl);
  if (headers.unreadable_key) {
    std::string presented(BearerCredential(*r.Header("authorization")).value_or(""));
    if (!base.empty()) {
      caller = co_await deps.oauth.Admit(std::move(presented), base,
                                         AuthorizationServer::Resource::kA2a);
    }
  } else {
    caller = co_await Authenticate(deps.tenants, headers);
  }
  if (!caller) {
    const Error& why = caller.error();
    if (why.code != ErrorCode::kUnauthenticated && why.code != ErrorCode::kMissingHeader) {
      // A credential of another environment: no such agent for it.
      co_return A2aRefusal(rpc, 404,
                           {Fault::kInvalidRequest, "no A2A agent here for this credential"});
    }
    Response refused = A2aRefusal(rpc, 401, {Fault::kUnauthenticated, why.message});
    refused.headers.emplace_back("WWW-Authenticate", A2aChallenge(headers.unreadable_key, why));
    co_return refused;
  }
  const auto agent_of = A2aAgentOf(r.Param("agent"));
  A2aInterface at{r.Param("org"),
                  r.Param("env"),
                  agent_of ? agent_of->first : "",
                  agent_of ? agent_of->second : std::nullopt,
                  std::move(*caller),
                  {}};
  if (!agent_of || at.caller.org_id != at.org || at.caller.env != at.env)
    co_return A2aRefusal(rpc, 404,
                         {Fault::kInvalidRequest, "no A2A agent here for this credential"});
  // An agent not deployed here is not here; one the caller may not chat with is (its messages are
  // REJECTED tasks), but its card is not shown.
  const auto agent = co_await deps.invoke.Admit(at.caller, at.agent_id);
  if (!agent && IsServiceFailure(agent.error())) {
    co_return A2aRefusal(rpc, HttpStatusOf(agent.error().code), a2a::FromError(agent.error()));
  }
  if (!agent && agent.error().code != ErrorCode::kForbidden)
    co_return A2aRefusal(rpc, 404,
                         {Fault::kInvalidRequest, "no A2A agent here for this credential"});
  if (agent) at.agent = agent->loaded();
  if (any_version) co_return at;
  if (auto refused = a2a::CheckVersion(A2aVersionAsked(r)))
    co_return A2aRefusal(rpc, rpc ? 200 : 400, *refused);
  co_return at;
}

asio::awaitable<Response> AgentCardResponse(RouteDeps& deps, Request& r) {
  const std::string& org = r.Param("org");
  const std::string& env = r.Param("env");
  const auto agent_of = A2aAgentOf(r.Param("agent"));
  if (!agent_of) co_return A2aRefusal(false, 404, {Fault::kInvalidRequest, "no A2A agent here"});
  const std::string& agent_id = agent_of->first;
  // Without a credential, only a discoverable agent's card is there; anything else asks for one,
  // saying nothing of whether the agent exists.
  const bool anonymous = !r.Header("authorization") && !r.Header("fl-api-token");
  std::shared_ptr<const LoadedAgent> found;
  if (anonymous) {
    auto discoverable = co_await deps.invoke.Discoverable(org, agent_id, env);
    if (discoverable) found = std::move(*discoverable);
  }
  if (!found) {
    auto admitted = co_await AdmitA2aCaller(deps, r, /*rpc=*/false, /*any_version=*/true);
    if (auto* refused = std::get_if<Response>(&admitted)) co_return std::move(*refused);
    found = std::get<A2aInterface>(admitted).agent;
    if (!found) {
      co_return A2aRefusal(false, 404,
                           {Fault::kInvalidRequest, "no A2A agent here for this credential"});
    }
  }
  const auto& loaded = *found;
  const auto base = OAuthBase(deps, r);
  if (!base) co_return A2aRefusal(false, 503, {Fault::kInternal, kNoPublicUrl});
  a2a::CardFacts facts{*base + "/a2a/" + org + "/" + env + "/" + r.Param("agent") + "/",
                       agent_id,
                       loaded.config.name,
                       loaded.config.description,
                       loaded.version,
                       loaded.config.output_schema.has_value(),
                       *base + std::string(oauth::kTokenPath),
                       *base + std::string(oauth::kServerMetadataPath),
                       deps.a2a_push != nullptr && deps.a2a_push->Offered()};
  json::object card = a2a::AgentCard(facts);
  const std::string canonical = a2a::CanonicalCard(card);
  // Signed as served, with the current key: a rotation re-signs it. Without a master key (no key
  // to open) it goes unsigned.
  auto signature =
      co_await deps.oauth.SignDetached(canonical, *base + std::string(oauth::kJwksPath));
  std::string kid;
  if (signature) {
    card["signatures"] = json::array{json::object{{"protected", signature->protected_header},
                                                  {"signature", signature->signature}}};
    kid = signature->protected_header;
  }
  // ECDSA signatures differ each time: the tag is the content's and the key's.
  const std::string etag =
      "\"" + ToHex(crypto::Sha256(canonical + "\n" + kid)).substr(0, 32) + "\"";
  a2a::AddLegacyFields(card, facts.interface_url);
  std::string body = json_text::Write(card);
  Response response;
  if (const auto match = r.Header("if-none-match"); match && *match == etag) {
    response.status = 304;
  } else {
    response = JsonTextResponse(200, std::move(body));
  }
  response.headers.emplace_back("ETag", etag);
  // Read with a credential, a shared cache must not keep it.
  response.headers.emplace_back("Cache-Control",
                                anonymous ? "public, max-age=60" : "private, max-age=60");
  co_return response;
}

}  // namespace agentgate::http
