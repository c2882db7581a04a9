#include "adapters/http_server/router.hpp"

#include "adapters/http_server/responses.hpp"

namespace agentgate::http {
namespace {

// Splits "/a/b/c" into {"a","b","c"}; a trailing slash yields an empty last segment.
std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path[0] != '/') return out;
  std::size_t start = 1;
  while (true) {
    const auto slash = path.find('/', start);
    out.push_back(path.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

}  // namespace

bool MatchPattern(std::string_view pattern, std::string_view path,
                  std::map<std::string, std::string>& params) {
  const auto want = Segments(pattern);
  const auto got = Segments(path);
  if (want.size() != got.size() || got.empty()) return false;
  std::map<std::string, std::string> captured;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto w = want[i];
    if (w.size() > 2 && w.front() == '{' && w.back() == '}') {
      if (got[i].empty()) return false;
      captured.emplace(std::string(w.substr(1, w.size() - 2)), std::string(got[i]));
    } else if (w != got[i]) {
      return false;
    }
  }
  params = std::move(captured);
  return true;
}

void Router::Add(std::string method, std::string pattern, Handler handler,
                 ErrorRenderer render_error) {
  routes_.push_back(Route{std::move(method), std::move(pattern), std::move(handler),
                          render_error != nullptr ? render_error : &ErrorResponse});
}

Response Router::RenderError(std::string_view path, const Error& error) const {
  path = path.substr(0, path.find('?'));
  for (const auto& route : routes_) {
    std::map<std::string, std::string> params;
    if (MatchPattern(route.pattern, path, params)) return route.render_error(error);
  }
  return ErrorResponse(error);
}

Router::Match Router::Find(std::string_view method, std::string_view path) const {
  Match result;
  for (const auto& route : routes_) {
    std::map<std::string, std::string> params;
    if (!MatchPattern(route.pattern, path, params)) continue;
    if (route.method == method) {
      result.outcome = Outcome::kMatched;
      result.route = &route;
      result.params = std::move(params);
      return result;
    }
    result.outcome = Outcome::kMethodNotAllowed;
  }
  return result;
}

}  // namespace agentgate::http
