#pragma once
// What the Daemon's ways in share (the HTTP invoke, the flow action, MCP's tools/call): reading
// an invoke from a request, admitting it and answering its turn, each route rendering results
// and errors its own way.

#include "adapters/http_server/handlers/route_deps.hpp"

#include <boost/json/object.hpp>

#include <functional>
#include <optional>
#include <string>
#include <variant>

namespace agentgate::http {

using InvokeRenderer = std::function<Response(const Result<InvokeResult>&)>;

CallerHeaders CallerHeadersOf(const Request& r);

// What an invoke asks for, read before its turn runs: the parsed JSON body is freed then, not held
// for the turn's whole life.
struct InvokeInput {
  std::string agent_id;
  InvokeRequest request;
  std::optional<std::string> key;  // Idempotency-Key
  std::string fingerprint;         // of the request, for a replay's check (only with a key)
  RunOptions delivery{};           // the HTTP invoke's: background, streamed
  bool stream_usage = false;       // an OpenAI stream's: a last chunk with the usage
};

struct AuthenticatedCall {
  Caller caller;
  InvokeInput call;
};

// Authenticates the caller (before the body is judged, so an anonymous caller learns nothing) and
// reads what it asks for with `read`, or answers with `refuse`. The request's body and headers are
// freed once read.
boost::asio::awaitable<std::variant<Response, AuthenticatedCall>> AuthenticateAndRead(
    RouteDeps& deps, Request& r, Result<InvokeInput> (*read)(const Request&),
    Response (*refuse)(const Error&));

// The call an authenticated request makes, under the request's span.
InvokeCall CallOf(const AuthenticatedCall& ok, const SpanContext* trace);

// A Location header's worth: where a run is read, absolute under `[server] public_url` when the
// operator set one (behind a balancer the server cannot know the URL it is reached at).
std::string RunLocation(const RouteDeps& deps, const std::string& run_id);

// An invoke route whole: authenticates the caller (before the body is judged, so an anonymous
// caller learns nothing), reads what it asks for with `read` or answers with `refuse`, then runs
// InvokeOnce and answers with `render`. The request's body and headers are freed before the turn
// runs; a route returns this coroutine itself, with no frame of its own around it.
boost::asio::awaitable<Response> InvokeFromRequest(RouteDeps& deps, Request& r,
                                                   Result<InvokeInput> (*read)(const Request&),
                                                   Response (*refuse)(const Error&),
                                                   const InvokeRenderer& render);

// Runs one call (its admission and Idempotency-Key, then its turn) and answers it: a replay is
// the stored response with `Idempotent-Replayed: true`; a result is `render`ed, which is also
// what a commit stores for the call's key (the call's own `answer` is not used).
boost::asio::awaitable<Response> InvokeOnce(RouteDeps& deps, InvokeCall call,
                                            const InvokeRenderer& render);

}  // namespace agentgate::http
