#include "adapters/http_server/router.hpp"

#include <gtest/gtest.h>

namespace agentgate::http {

TEST(RoutePattern, CapturesNamedSegments) {
  std::map<std::string, std::string> params;
  ASSERT_TRUE(
      MatchPattern("/admin/v1/orgs/{org}/tokens/{id}", "/admin/v1/orgs/acme/tokens/t1", params));
  EXPECT_EQ(params.at("org"), "acme");
  EXPECT_EQ(params.at("id"), "t1");
}

TEST(RoutePattern, RequiresEverySegmentAndNoMore) {
  std::map<std::string, std::string> params;
  EXPECT_FALSE(MatchPattern("/admin/v1/orgs/{org}", "/admin/v1/orgs", params));
  EXPECT_FALSE(MatchPattern("/admin/v1/orgs/{org}", "/admin/v1/orgs/", params));  // empty capture
  EXPECT_FALSE(MatchPattern("/admin/v1/orgs/{org}", "/admin/v1/orgs/a/b", params));
  EXPECT_FALSE(MatchPattern("/healthz", "/healthz/", params));
  EXPECT_FALSE(MatchPattern("/healthz", "healthz", params));
  EXPECT_TRUE(MatchPattern("/healthz", "/healthz", params));
}

TEST(Router, DistinguishesNotFoundFromMethodNotAllowed) {
  Router router;
  router.Add("GET", "/a/{x}",
             [](Request&) -> boost::asio::awaitable<Response> { co_return Response{}; });
  router.Add("POST", "/a/{x}/b",
             [](Request&) -> boost::asio::awaitable<Response> { co_return Response{}; });
  auto hit = router.Find("GET", "/a/1");
  EXPECT_EQ(hit.outcome, Router::Outcome::kMatched);
  EXPECT_EQ(hit.params.at("x"), "1");
  EXPECT_EQ(router.Find("DELETE", "/a/1").outcome, Router::Outcome::kMethodNotAllowed);
  EXPECT_EQ(router.Find("GET", "/zzz").outcome, Router::Outcome::kNotFound);
  EXPECT_EQ(router.Find("POST", "/a/1/b").route->pattern, "/a/{x}/b");
}

TEST(RequestQuery, DecodesParameters) {
  Request r;
  r.query = "month=2026-11&q=SELECT+Id%20FROM+X&flag";
  EXPECT_EQ(r.QueryParam("month"), "2026-11");
  EXPECT_EQ(r.QueryParam("q"), "SELECT Id FROM X");
  EXPECT_EQ(r.QueryParam("flag"), "");
  EXPECT_FALSE(r.QueryParam("missing"));
}

TEST(Request, CookiesAreFoundByExactNameAmongOthers) {
  Request r;
  EXPECT_FALSE(r.Cookie("agentgate_console"));
  r.headers = {{"cookie", "theme=dark; xagentgate_console=no;agentgate_console=abc=; last=1"}};
  EXPECT_EQ(r.Cookie("agentgate_console"), "abc=");
  EXPECT_EQ(r.Cookie("theme"), "dark");
  EXPECT_EQ(r.Cookie("last"), "1");
  EXPECT_FALSE(r.Cookie("agentgate"));
  r.headers = {{"cookie", "agentgate_console="}};
  EXPECT_EQ(r.Cookie("agentgate_console"), "");
}

TEST(Request, ReleasingThePayloadFreesBodyAndHeadersButKeepsTheRest) {
  Request r;
  r.method = "POST";
  r.path = "/api/agents/a/invoke";
  r.request_id = "req-1";
  r.body = std::string(4096, 'x');
  r.headers = {{"fl-api-token", std::string(64, 't')}, {"content-type", "application/json"}};
  r.ReleasePayload();
  EXPECT_TRUE(r.body.empty());
  EXPECT_LT(r.body.capacity(), 4096u);  // the memory went back, not only the length
  EXPECT_EQ(r.headers.capacity(), 0u);
  EXPECT_FALSE(r.Header("fl-api-token"));
  EXPECT_EQ(r.method, "POST");  // what the server logs after the handler
  EXPECT_EQ(r.path, "/api/agents/a/invoke");
  EXPECT_EQ(r.request_id, "req-1");
}

TEST(Router, AnUnroutedPathUnderAShapedPrefixAnswersInThatShape) {
  Router router;
  const ErrorRenderer teapot = [](const Error&) {
    Response r;
    r.status = 418;
    return r;
  };
  router.AddErrorShape("/v1/", teapot);
  router.Add("GET", "/v1/models",
             [](Request&) -> boost::asio::awaitable<Response> { co_return Response{}; });
  const Error missing(ErrorCode::kNotFound, "no route");
  EXPECT_EQ(router.RenderError("/v1/nope", missing).status, 418);
  EXPECT_EQ(router.RenderError("/v1/models", missing).status, 404);  // the route's own shape
  EXPECT_EQ(router.RenderError("/api/nope", missing).status, 404);
  EXPECT_EQ(router.RenderError("/v1", missing).status, 404);  // not under the prefix
}

}  // namespace agentgate::http
