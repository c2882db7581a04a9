#include "domain/auth/access_token.hpp"

#include <algorithm>

#include "domain/json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <optional>

namespace agentgate::oauth {
namespace json = boost::json;

namespace {

Error Refused(std::string why) {
  return Error{ErrorCode::kUnauthenticated, "the access token was refused: " + std::move(why)};
}

std::optional<json::object> ObjectOf(std::string_view text) {
  boost::system::error_code ec;
  json::value parsed = json::parse(text, ec);
  if (ec || !parsed.is_object()) return std::nullopt;
  return std::move(parsed.get_object());
}

bool HasScope(std::string_view scopes, std::string_view wanted) {
  while (!scopes.empty()) {
    const auto space = scopes.find(' ');
    if (scopes.substr(0, space) == wanted) return true;
    scopes = space == std::string_view::npos ? std::string_view() : scopes.substr(space + 1);
  }
  return false;
}

std::string_view StringAt(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

bool IntegerAt(const json::object& o, std::string_view key, std::int64_t& out) {
  const auto* v = o.if_contains(key);
  if (v == nullptr) return false;
  if (v->is_int64()) {
    out = v->get_int64();
    return true;
  }
  if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    out = static_cast<std::int64_t>(v->get_uint64());
    return true;
  }
  return false;
}

}  // namespace

std::string AccessTokenHeader(std::string_view kid) {
  return json_text::ObjectWriter(64)
      .String("alg", "ES256")
      .String("typ", "at+jwt")
      .String("kid", kid)
      .Finish();
}

std::string AccessTokenPayload(const AccessTokenClaims& c) {
  json_text::ObjectWriter out(256);
  out.String("iss", c.issuer);
  if (c.audiences.size() == 1) {
    out.String("aud", c.audiences.front());
  } else {
    out.Array("aud");
    for (const auto& audience : c.audiences) out.String(audience);
    out.End();
  }
  return out.String("sub", c.client_id)
      .String("client_id", c.client_id)
      .String("scope", c.scope)
      .String("jti", c.jti)
      .Int("iat", c.issued_at_s)
      .Int("exp", c.expires_at_s)
      .Finish();
}

Result<std::string> SigningKeyOf(std::string_view header_json) {
  const auto header = ObjectOf(header_json);
  if (!header) return Refused("its header is not a JSON object");
  if (StringAt(*header, "alg") != "ES256") return Refused("it is not signed ES256");
  if (StringAt(*header, "typ") != "at+jwt")
    return Refused("it is not an access token (typ at+jwt)");
  const auto kid = StringAt(*header, "kid");
  if (kid.empty()) return Refused("its header names no signing key (kid)");
  return std::string(kid);
}

Result<AccessTokenClaims> AcceptedClaims(std::string_view payload_json, std::string_view issuer,
                                         std::string_view audience, std::string_view scope,
                                         std::int64_t now_s) {
  const auto claims = ObjectOf(payload_json);
  if (!claims) return Refused("its claims are not a JSON object");
  if (StringAt(*claims, "iss") != issuer) return Refused("it was issued by another server (iss)");
  // aud is one string, or an array of them (RFC 7519 §4.1.3).
  const auto* aud = claims->if_contains("aud");
  const bool for_us =
      aud != nullptr &&
      ((aud->is_string() && aud->get_string() == audience) ||
       (aud->is_array() &&
        std::any_of(aud->get_array().begin(), aud->get_array().end(), [&](const json::value& a) {
          return a.is_string() && a.get_string() == audience;
        })));
  if (!for_us) return Refused("it is for another resource (aud)");
  AccessTokenClaims out;
  if (!IntegerAt(*claims, "exp", out.expires_at_s) || !IntegerAt(*claims, "iat", out.issued_at_s))
    return Refused("it has no exp or iat");
  if (out.expires_at_s <= now_s) return Refused("it has expired");
  out.issuer = issuer;
  out.audiences = {std::string(audience)};
  out.client_id = StringAt(*claims, "client_id");
  out.scope = StringAt(*claims, "scope");
  out.jti = StringAt(*claims, "jti");
  if (out.client_id.empty() || StringAt(*claims, "sub") != out.client_id)
    return Refused("it names no client");
  if (!HasScope(out.scope, scope))
    return Refused("it does not grant scope '" + std::string(scope) + "'");
  return out;
}

}  // namespace agentgate::oauth
