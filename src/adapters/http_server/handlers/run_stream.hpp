#pragma once
// A run's events as a text/event-stream response (docs/runs.md): a follower's, for GET
// /api/runs/{id}/events and a streamed invoke that cancels on hang-up (the events after `after`,
// live until the terminal one), and a streamed invoke's own run, run in its response.

#include "adapters/http_server/handlers/route_deps.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace agentgate::http {

// How a stream writes what it sends: agentgate's own events (RunEventsFormat), or another API's
// shape (OpenAI's chat.completion chunks). On the stream's executor only.
class StreamFormat {
 public:
  virtual ~StreamFormat() = default;
  // Appends the frames of the run's next event.
  virtual void Frame(std::string& out, const RunEvent& event) = 0;
  // Appends the stream's own last frame: it stops before the run's end, for the ticket's reason.
  virtual void Stopped(std::string& out, const StreamTicket& ticket) = 0;
  // The shape's own end came before the run's (an error it cannot take back): the stream ends.
  virtual bool Over() const { return false; }
};
std::shared_ptr<StreamFormat> RunEventsFormat();

// `ticket`: the stream's place among the streams open here (StreamRoster), held while it is open
// and given back as soon as the client closes its connection; stopped (its token revoked), the
// stream ends with a `stream.ended` event saying why. `request` is the one this response answers;
// with `cancel_on_hang_up` (the streamed invoke's "on_disconnect": "cancel"), the client closing
// its connection cancels the run too.
Response RunEventStream(RouteDeps& deps, std::string run_id, std::int64_t after,
                        std::shared_ptr<StreamTicket> ticket, Request& request,
                        bool cancel_on_hang_up = false,
                        std::shared_ptr<StreamFormat> format = nullptr);

// A streamed invoke's own run, run in its response's coroutine (docs/runs.md): its events from the
// first, live to its terminal one (the stream may end before, its ticket stopped; the run goes on).
// The run starts beside the response if it is never written.
Response OwnRunStream(RouteDeps& deps, std::shared_ptr<StreamedRun> run,
                      std::shared_ptr<StreamTicket> ticket,
                      std::shared_ptr<StreamFormat> format = nullptr);

// A decision's answer (docs/daemon.md, Tool approvals): the continued turn's plain body (200), or
// the run going on in the background (202, Location the run).
Response DecidedRunResponse(const RouteDeps& deps, const Runs::DecideAnswer& answer);

}  // namespace agentgate::http
