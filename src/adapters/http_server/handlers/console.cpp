// /console: the operator console's embedded files and its sign-in (docs/console.md). The console
// itself only calls /admin/v1, authenticated by the session cookie issued here.
#include "adapters/http_server/console_assets.hpp"
#include "adapters/http_server/handlers/admin_common.hpp"
#include "crypto/crypto.hpp"
#include "domain/admin/admin_requests.hpp"

#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

std::string_view ContentTypeOf(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

// The page may load only its own files and call only this origin; nothing may frame it.
void AddPageHeaders(Response& r) {
  r.headers.emplace_back("Content-Security-Policy",
                         "default-src 'none'; script-src 'self'; style-src 'self'; "
                         "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                         "form-action 'none'; frame-ancestors 'none'");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  r.headers.emplace_back("Cache-Control", "no-cache");
}

Result<Response> ServeFile(std::string_view name) {
  for (const auto& file : ConsoleAssets()) {
    if (file.name != name) continue;
    Response r;
    r.content_type = ContentTypeOf(name);
    r.body = std::string(file.bytes);
    AddPageHeaders(r);
    return r;
  }
  return MakeError(ErrorCode::kNotFound, "no console file named '" + std::string(name) + "'");
}

// Secure when the browser reached us over TLS (a TLS-terminating proxy says so): the cookie then
// never travels in clear. Over plain http on localhost it could not be set at all with Secure.
std::string SessionCookie(const Request& request, std::string_view value,
                          std::int64_t max_age_seconds) {
  std::string cookie = std::string(kConsoleCookie) + "=" + std::string(value) +
                       "; Path=/; Max-Age=" + std::to_string(max_age_seconds) +
                       "; HttpOnly; SameSite=Strict";
  const auto proto = request.Header("x-forwarded-proto");
  if (proto && proto->starts_with("https")) cookie += "; Secure";
  return cookie;
}

Response SessionResponse(int status, json::object body) {
  Response r = JsonResponse(status, body);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

}  // namespace

void AddConsoleRoutes(Router& router, RouteDeps& deps) {
  router.Add("GET", "/console", [](Request&) -> asio::awaitable<Response> {
    Response r;
    r.status = 308;
    r.content_type = "text/plain";
    r.headers.emplace_back("Location", "/console/");
    co_return r;
  });

  router.Add("GET", "/console/", [](Request&) -> asio::awaitable<Response> {
    auto page = ServeFile("index.html");
    co_return page ? std::move(*page) : ErrorResponse(page.error());
  });

  router.Add("GET", "/console/assets/{file}", [](Request& r) -> asio::awaitable<Response> {
    auto file = ServeFile(r.Param("file"));
    co_return file ? std::move(*file) : ErrorResponse(file.error());
  });

  // What the page needs before it draws anything: is the admin API on, is this browser signed in.
  router.Add("GET", "/console/session", [&deps](Request& r) -> asio::awaitable<Response> {
    json::object out{{"admin_api_enabled", deps.admin_token_hash.has_value()},
                     {"signed_in", false}};
    const auto session_id = r.Cookie(kConsoleCookie);
    if (deps.admin_token_hash && session_id) {
      if (auto session = deps.console.Find(*session_id)) {
        out["signed_in"] = true;
        out["csrf_token"] = session->csrf_token;
        out["expires_at"] = IsoTime(session->expires_at_ms);
      }
    }
    co_return SessionResponse(200, std::move(out));
  });

  router.Add("POST", "/console/session", [&deps](Request& r) -> asio::awaitable<Response> {
    auto body = ParseJsonBody(r);
    if (!body) co_return ErrorResponse(body.error());
    auto token = ParseConsoleSignIn(*body);
    if (!token) co_return ErrorResponse(token.error());
    if (!deps.admin_token_hash) {
      co_return ErrorResponse(MakeError(ErrorCode::kUnauthenticated,
                                        "the admin API is disabled: no admin token is configured"));
    }
    if (!crypto::ConstantTimeEquals(crypto::Sha256(*token), *deps.admin_token_hash)) {
      co_return ErrorResponse(
          MakeError(ErrorCode::kUnauthenticated, "the admin token was refused"));
    }
    const auto opened = deps.console.Open();
    Response out =
        SessionResponse(200, json::object{{"signed_in", true},
                                          {"csrf_token", opened.session.csrf_token},
                                          {"expires_at", IsoTime(opened.session.expires_at_ms)}});
    out.headers.emplace_back("Set-Cookie", SessionCookie(r, opened.session_id,
                                                         deps.console.limits().lifetime_ms / 1000));
    co_return out;
  });

  router.Add("DELETE", "/console/session", [&deps](Request& r) -> asio::awaitable<Response> {
    const auto session_id = r.Cookie(kConsoleCookie);
    if (!session_id) {
      co_return ErrorResponse(MakeError(ErrorCode::kUnauthenticated, "not signed in"));
    }
    if (auto ok = RequireConsoleSession(r, deps.console, *session_id); !ok) {
      co_return ErrorResponse(ok.error());
    }
    deps.console.Close(*session_id);
    Response out = SessionResponse(200, json::object{{"signed_in", false}});
    out.headers.emplace_back("Set-Cookie", SessionCookie(r, "", 0));
    co_return out;
  });
}

}  // namespace agentgate::http
