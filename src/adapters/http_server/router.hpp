#pragma once
// The route table: (method, path pattern, handler). Patterns are literal segments and {name}
// captures, e.g. "/admin/v1/orgs/{org}/tokens/{id}". The table also feeds the OpenAPI check.

#include "adapters/http_server/http_types.hpp"
#include "domain/error.hpp"

#include <map>
#include <string>
#include <vector>

namespace agentgate::http {

// How a route's errors look. Most routes use the API's error body (ErrorResponse); the metadata
// gateway answers its own envelope, also for errors the HTTP layer raises (413, 431, 405).
using ErrorRenderer = Response (*)(const Error& error);

struct Route {
  std::string method;
  std::string pattern;
  Handler handler;
  ErrorRenderer render_error;
  std::vector<std::string> segments;  // the pattern split once, so a lookup never splits it
};

// Matches `path` against `pattern`; on success fills `params` and returns true.
bool MatchPattern(std::string_view pattern, std::string_view path,
                  std::map<std::string, std::string>& params);

class Router {
 public:
  void Add(std::string method, std::string pattern, Handler handler,
           ErrorRenderer render_error = nullptr);

  enum class Outcome { kMatched, kNotFound, kMethodNotAllowed };
  struct Match {
    Outcome outcome = Outcome::kNotFound;
    const Route* route = nullptr;
    std::map<std::string, std::string> params;
  };
  Match Find(std::string_view method, std::string_view path) const;

  const std::vector<Route>& routes() const { return routes_; }

  // A path under `prefix` that no route matches has its errors (404, 413, ...) rendered by
  // `render_error`: an API with an error shape of its own answers in it on every path (/v1).
  void AddErrorShape(std::string prefix, ErrorRenderer render_error);

  // `error` in the shape of the route `path` belongs to (any method), else of the error shape its
  // prefix has, else the API's error body.
  Response RenderError(std::string_view path, const Error& error) const;

 private:
  std::vector<Route> routes_;
  std::vector<std::pair<std::string, ErrorRenderer>> shapes_;
};

}  // namespace agentgate::http
