#pragma once
// A streamed call's set-up, shared by the streamed invoke, chat completion and response: its place
// among the token's streams taken first, its run started, then its events answered from the first
// in the way in's own shape (docs/runs.md).

#include "adapters/http_server/handlers/route_deps.hpp"
#include "adapters/http_server/handlers/run_stream.hpp"

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <string>

namespace agentgate::http {

// What differs between the ways in.
struct StreamShape {
  Response (*refuse)(const Error&) = nullptr;  // a refusal before the stream, in its error shape
  // The stored answer of the call that used the key first.
  std::function<Response(StoredResponse&)> replayed;
  // The run's events in the way in's frames, by the run's id; none: agentgate's own events.
  std::function<std::shared_ptr<StreamFormat>(const std::string& run_id)> format_of;
  bool notify = false;             // the run's webhook is sent
  bool cancel_on_hang_up = false;  // the client closing its connection cancels the run
  bool located = false;            // a Location header names the run
};

boost::asio::awaitable<Response> StreamCall(RouteDeps& deps, Request& r, const InvokeCall& call,
                                            const StreamShape& shape);

}  // namespace agentgate::http
