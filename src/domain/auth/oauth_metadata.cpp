#include "domain/auth/oauth_metadata.hpp"

#include "domain/auth/oauth_token_request.hpp"
#include "domain/json_text.hpp"

namespace agentgate::oauth {

std::string ResourceOf(std::string_view base) {
  return std::string(base) + std::string(kResourcePath);
}

std::string A2aResourceOf(std::string_view base) {
  return std::string(base) + std::string(kA2aResourcePath);
}

std::string ProtectedResourceMetadata(std::string_view base) {
  return json_text::ObjectWriter(256)
      .String("resource", ResourceOf(base))
      .Array("authorization_servers")
      .String(base)
      .End()
      .Array("scopes_supported")
      .String(kMcpScope)
      .End()
      .Array("bearer_methods_supported")
      .String("header")
      .End()
      .Array("resource_signing_alg_values_supported")
      .String("ES256")
      .End()
      .String("resource_name", "agentgate MCP server")
      .Finish();
}

std::string AuthorizationServerMetadata(std::string_view base) {
  const std::string b(base);
  // authorization_endpoint and response_types_supported are there for clients whose parsers
  // require them (the MCP SDK's); the endpoint refuses every request (docs/decisions.md).
  return json_text::ObjectWriter(512)
      .String("issuer", b)
      .String("token_endpoint", b + std::string(kTokenPath))
      .String("jwks_uri", b + std::string(kJwksPath))
      .String("authorization_endpoint", b + std::string(kAuthorizePath))
      .Array("response_types_supported")
      .End()
      .Array("grant_types_supported")
      .String("client_credentials")
      .End()
      .Array("token_endpoint_auth_methods_supported")
      .String("client_secret_basic")
      .String("client_secret_post")
      .End()
      .Array("scopes_supported")
      .String(kMcpScope)
      .String(kA2aScope)
      .End()
      .Array("protected_resources")
      .String(ResourceOf(base))
      .String(A2aResourceOf(base))
      .End()
      .Finish();
}

std::string BearerChallenge(std::string_view base, const std::optional<std::string>& refusal) {
  // No base (no public_url, and a Host nobody vouches for): no URL to point at.
  std::string challenge = "Bearer";
  if (!base.empty())
    challenge +=
        " resource_metadata=\"" + std::string(base) + std::string(kResourceMetadataPath) + "\"";
  if (refusal) {
    if (!base.empty()) challenge += ",";
    std::string quoted;
    for (char c : *refusal) {
      if (c == '"' || c == '\\') continue;  // a quoted-string may carry neither unescaped
      quoted += c;
    }
    challenge += " error=\"invalid_token\", error_description=\"" + quoted + "\"";
  }
  return challenge;
}

}  // namespace agentgate::oauth
