// The built-in authorization server and the protected resource's discovery (docs/mcp.md, OAuth):
// RFC 9728's and RFC 8414's metadata, the client-credentials token endpoint (RFC 6749 §4.4), the
// JWKS, and an authorization endpoint that refuses (there is no user to ask). The admin API's
// signing-key list and rotation are here too.
#include "adapters/http_server/handlers/admin_common.hpp"
#include "adapters/http_server/handlers/oauth_common.hpp"
#include "app/access/authorization_server.hpp"
#include "crypto/crypto.hpp"
#include "domain/auth/oauth_metadata.hpp"
#include "domain/json_text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

Response NoStore(Response response) {
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

Response Document(std::string body) {
  Response response = JsonTextResponse(200, std::move(body));
  response.headers.emplace_back("Cache-Control", "max-age=60");
  return response;
}

// RFC 6749 §5.2's shape of a refusal: its name and description; a 401 to a client that sent an
// Authorization header asks for Basic.
Response OAuthErrorResponse(const Error& error,
                            const oauth::ClientAuthorization& authorization = {}) {
  Response response = JsonTextResponse(oauth::OAuthStatusOf(error),
                                       json_text::ObjectWriter(256)
                                           .String("error", oauth::OAuthErrorName(error))
                                           .String("error_description", error.message)
                                           .Finish());
  if (oauth::ChallengesBasic(error, authorization))
    response.headers.emplace_back("WWW-Authenticate", "Basic realm=\"agentgate\"");
  return NoStore(std::move(response));
}

oauth::ClientAuthorization ClientAuthorizationOf(const Request& r) {
  oauth::ClientAuthorization out;
  const auto header = r.Header("authorization");
  if (!header) return out;
  const auto space = header->find(' ');
  std::string scheme(header->substr(0, space));
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "basic" || space == std::string_view::npos) {
    out.kind = oauth::ClientAuthorization::Kind::kOther;
    return out;
  }
  out.kind = oauth::ClientAuthorization::Kind::kBasic;
  std::string_view credentials = header->substr(space + 1);
  while (!credentials.empty() && credentials.front() == ' ') credentials.remove_prefix(1);
  out.basic = crypto::FromBase64(credentials);
  return out;
}

json::object SigningKeyJson(const SigningKeyRecord& key) {
  json::object out{{"kid", key.kid}, {"created_at", IsoTime(key.created_at_ms)}};
  out["retired_at"] =
      key.retired_at_ms == 0 ? json::value(nullptr) : json::value(IsoTime(key.retired_at_ms));
  out["current"] = key.retired_at_ms == 0;
  return out;
}

}  // namespace

void AddOAuthServerRoutes(Router& router, RouteDeps& deps) {
  const auto resource_metadata = [&deps](Request& r) -> asio::awaitable<Response> {
    const auto base = OAuthBase(deps, r);
    if (!base) co_return ErrorResponse(Error(ErrorCode::kUnavailable, kNoPublicUrl));
    co_return Document(oauth::ProtectedResourceMetadata(*base));
  };
  // RFC 9728 §3.1: the document of resource /mcp is found by inserting the well-known path before
  // the resource's; the bare one serves clients that look only there.
  router.Add("GET", std::string(oauth::kResourceMetadataPath), resource_metadata);
  router.Add("GET", std::string(oauth::kResourceMetadataPath) + std::string(oauth::kResourcePath),
             resource_metadata);
  router.Add("GET", std::string(oauth::kServerMetadataPath),
             [&deps](Request& r) -> asio::awaitable<Response> {
               const auto base = OAuthBase(deps, r);
               if (!base) co_return ErrorResponse(Error(ErrorCode::kUnavailable, kNoPublicUrl));
               co_return Document(oauth::AuthorizationServerMetadata(*base));
             });

  router.Add(
      "POST", std::string(oauth::kTokenPath), [&deps](Request& r) -> asio::awaitable<Response> {
        if (r.body.size() > oauth::kMaxTokenRequestBytes) {
          co_return OAuthErrorResponse(
              Error(ErrorCode::kPayloadTooLarge, "the token request's body is larger than 8 KiB"));
        }
        const auto base = OAuthBase(deps, r);
        if (!base) {
          co_return OAuthErrorResponse(Error(ErrorCode::kUnavailable, kNoPublicUrl));
        }
        const auto authorization = ClientAuthorizationOf(r);
        auto read = oauth::ReadTokenRequest(r.Header("content-type"), r.body, authorization);
        if (!read) co_return OAuthErrorResponse(read.error(), authorization);
        auto issued = co_await deps.oauth.IssueToken(std::move(*read), *base);
        if (!issued) co_return OAuthErrorResponse(issued.error(), authorization);
        const IssuedAccessToken& token = *issued;
        co_return NoStore(JsonTextResponse(200, json_text::ObjectWriter(1024)
                                                    .String("access_token", token.access_token)
                                                    .String("token_type", "Bearer")
                                                    .Int("expires_in", token.expires_in_s)
                                                    .String("scope", token.scope)
                                                    .Finish()));
      });

  router.Add("GET", std::string(oauth::kJwksPath), [&deps](Request&) -> asio::awaitable<Response> {
    auto keys = co_await deps.oauth.PublishedKeys();
    if (!keys) co_return ErrorResponse(keys.error());
    json::array listed;
    for (const auto& key : *keys) {
      listed.push_back(json::object{{"kty", "EC"},
                                    {"crv", "P-256"},
                                    {"x", key.x},
                                    {"y", key.y},
                                    {"kid", key.kid},
                                    {"use", "sig"},
                                    {"alg", "ES256"}});
    }
    // Short-lived in caches: a rotation's new key is read within a minute.
    Response response = JsonResponse(200, json::object{{"keys", std::move(listed)}});
    response.headers.emplace_back("Cache-Control", "max-age=60");
    co_return response;
  });

  // Never a redirect: no redirect URI was registered to send one to (RFC 6749 §4.1.2.1).
  router.Add("GET", std::string(oauth::kAuthorizePath), [](Request&) -> asio::awaitable<Response> {
    co_return OAuthErrorResponse(oauth::OAuthRefusal(
        ErrorCode::kInvalidRequest, "unsupported_response_type",
        "this authorization server has no users to ask: it issues tokens for the "
        "client_credentials grant only, at POST /oauth/token"));
  });

  router.Add("GET", "/admin/v1/oauth/signing-keys",
             AdminHandler(deps, [&deps](Request&) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(const auto keys, co_await deps.oauth.SigningKeys());
               json::array listed;
               for (const auto& key : keys) listed.push_back(SigningKeyJson(key));
               co_return JsonResponse(200, json::object{{"signing_keys", std::move(listed)}});
             }));
  router.Add("POST", "/admin/v1/oauth/signing-keys/rotate",
             AdminHandler(deps, [&deps](Request&) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(const auto key, co_await deps.oauth.RotateSigningKey());
               co_return JsonResponse(201, SigningKeyJson(key));
             }));
  router.Add(
      "POST", "/admin/v1/oauth/signing-keys/{kid}/revoke",
      AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
        AG_CO_TRYV(co_await deps.oauth.RevokeSigningKey(std::string(r.Param("kid"))));
        co_return JsonResponse(200, json::object{{"kid", r.Param("kid")}, {"revoked", true}});
      }));
}

}  // namespace agentgate::http
