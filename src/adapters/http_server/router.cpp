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

bool IsCapture(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

// `want` (a pattern's segments) against `got` (a path's); fills `params` only on a match, so a
// lookup allocates nothing for the routes that do not match.
bool MatchSegments(const std::vector<std::string>& want, const std::vector<std::string_view>& got,
                   std::map<std::string, std::string>* params) {
  if (want.size() != got.size() || got.empty()) return false;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (IsCapture(want[i]) ? got[i].empty() : want[i] != got[i]) return false;
  }
  if (params != nullptr) {
    params->clear();
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (IsCapture(want[i])) params->emplace(want[i].substr(1, want[i].size() - 2), got[i]);
    }
  }
  return true;
}

}  // namespace

bool MatchPattern(std::string_view pattern, std::string_view path,
                  std::map<std::string, std::string>& params) {
  const auto want = Segments(pattern);
  return MatchSegments(std::vector<std::string>(want.begin(), want.end()), Segments(path), &params);
}

void Router::Add(std::string method, std::string pattern, Handler handler,
                 ErrorRenderer render_error) {
  const auto split = Segments(pattern);
  std::vector<std::string> segments(split.begin(), split.end());
  routes_.push_back(Route{std::move(method), std::move(pattern), std::move(handler),
                          render_error != nullptr ? render_error : &ErrorResponse,
                          std::move(segments)});
}

Response Router::RenderError(std::string_view path, const Error& error) const {
  const auto got = Segments(path.substr(0, path.find('?')));
  for (const auto& route : routes_) {
    if (MatchSegments(route.segments, got, nullptr)) return route.render_error(error);
  }
  for (const auto& [prefix, render] : shapes_) {
    if (path.starts_with(prefix)) return render(error);
  }
  return ErrorResponse(error);
}

void Router::AddErrorShape(std::string prefix, ErrorRenderer render_error) {
  shapes_.emplace_back(std::move(prefix), render_error);
}

Router::Match Router::Find(std::string_view method, std::string_view path) const {
  Match result;
  const auto got = Segments(path);
  for (const auto& route : routes_) {
    if (!MatchSegments(route.segments, got, nullptr)) continue;
    if (route.method == method) {
      MatchSegments(route.segments, got, &result.params);
      result.outcome = Outcome::kMatched;
      result.route = &route;
      return result;
    }
    result.outcome = Outcome::kMethodNotAllowed;
  }
  return result;
}

}  // namespace agentgate::http
