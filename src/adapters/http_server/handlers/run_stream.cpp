#include "adapters/http_server/handlers/run_stream.hpp"
#include "adapters/http_server/handlers/invoke_common.hpp"

#include "adapters/http_server/responses.hpp"
#include "app/runs/run_body.hpp"
#include "app/turn/invoke_body.hpp"

#include "domain/json_text.hpp"
#include "domain/runs/run_events.hpp"
#include "observability/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/object.hpp>

#include <chrono>

namespace agentgate::http {

namespace asio = boost::asio;
using std::chrono::milliseconds;

namespace {

// A follower looks for a drain this often, and a quiet stream gets a comment line at this period
// so proxies do not cut it.
constexpr milliseconds kLookEvery{1000};
// The head goes out with the events of the stream's first moments (all of a quick run's, with its
// end: one send); a run with none this soon (queued) sends it with a comment instead, so the
// client learns at once that its stream is open.
constexpr milliseconds kFirstLook{50};
constexpr std::chrono::seconds kKeepAliveEvery{15};
// Room for a quick run's frames from the start: they are not copied as they grow.
constexpr std::size_t kFramesRoom = 4096;

using Clock = std::chrono::steady_clock;

// agentgate's own events (docs/runs.md): each as `id:`, `event:` and `data:` lines.
class RunEventFrames final : public StreamFormat {
 public:
  void Frame(std::string& out, const RunEvent& event) override { AppendSseFrame(out, event); }
  // Why, with no id (the client resumes from the run's last event it had).
  void Stopped(std::string& out, const StreamTicket& ticket) override {
    boost::json::object data{{"reason", ticket.reason()}, {"message", ticket.message()}};
    out.append("event: stream.ended\ndata: ").append(json_text::Write(data)).append("\n\n");
  }
};

// A follower's events from its cursor until the run's terminal one, or until the client leaves,
// the store fails, its ticket is stopped (the caller lost its right to follow: a last event says
// why) or, `drain_ends` it, the server drains (the client then resumes from its Last-Event-ID, here
// or elsewhere). The head goes out at `head_by` with the events until then.
asio::awaitable<void> FollowRun(RouteDeps& deps, RunCursor cursor, Clock::time_point head_by,
                                bool drain_ends, std::shared_ptr<StreamTicket> ticket,
                                std::shared_ptr<StreamFormat> format, ResponseStream& out) {
  const auto drained = [&] { return drain_ends && deps.draining(); };
  if (drained()) co_return;
  std::string frames;
  frames.reserve(kFramesRoom);
  StreamFormat* const shape = format.get();
  const RunEventSink frame = [&frames, shape](const RunEvent& event) {
    shape->Frame(frames, event);
  };
  // The head's events: those until head_by, gathered, not woken for one by one (at least one look).
  bool ended = false;
  for (;;) {
    const auto left = std::chrono::ceil<milliseconds>(head_by - Clock::now());
    auto read = co_await deps.runs.NextEvents(cursor, std::max(left, milliseconds(0)), frame,
                                              /*until_end=*/true, ticket.get());
    if (!read) co_return;
    ended = read->ended;
    ended = ended || format->Over();
    if (ended || read->events == 0 || Clock::now() >= head_by || ticket->stopped()) break;
  }
  if (ended || ticket->stopped()) {
    if (!ended) format->Stopped(frames, *ticket);
    co_await out.WriteLast(std::move(frames));
    co_return;
  }
  if (frames.empty()) frames = kSseKeepAlive;
  if (!co_await out.Write(std::move(frames))) co_return;
  auto quiet_since = Clock::now();
  while (!drained()) {
    frames.clear();  // moved from: its room went with the send
    auto read = co_await deps.runs.NextEvents(cursor, kLookEvery, frame, false, ticket.get());
    if (!read) co_return;
    const auto now = Clock::now();
    const bool over = read->ended || format->Over();
    if (over || ticket->stopped()) {
      if (!over) format->Stopped(frames, *ticket);
      co_await out.WriteLast(std::move(frames));
      co_return;
    }
    if (!frames.empty()) {
      if (!co_await out.Write(std::move(frames))) co_return;
      quiet_since = now;
    } else if (now - quiet_since >= kKeepAliveEvery) {
      if (!co_await out.Write(std::string(kSseKeepAlive))) co_return;
      quiet_since = now;
    }
  }
}

// A streamed invoke's own run, run here in its response's coroutine. One that ends within
// kFirstLook is framed from its channel and sent whole, with its end; a longer one gets a follower
// at kFirstLook, which sends its events from then on. That follower does not stop at a drain:
// the run finishes here within the drain, and its client gets all of it.
struct LateFollower {
  explicit LateFollower(const asio::any_io_executor& executor) : timer(executor, kFirstLook) {}
  // Until kFirstLook, when the follower starts; then until the follower returned (canceled).
  asio::steady_timer timer;
  // Waiting for kFirstLook; the run ended first (it is sent whole, with no follower); or the
  // follower started, and then returned.
  enum class Stage { kWaiting, kRunEndedFirst, kFollowing, kFollowerReturned };
  Stage stage = Stage::kWaiting;
};

// Every event of a run that ended, framed for one send.
std::string AllFrames(const RunChannel& channel, StreamFormat& format) {
  std::size_t size = 0;
  channel.ForEachAfter(0, [&size](const RunEvent& event) {
    size += event.type.size() + event.data.size() + 40;  // the frame's fixed parts, and the id
  });
  std::string frames;
  frames.reserve(size);
  channel.ForEachAfter(0,
                       [&frames, &format](const RunEvent& event) { format.Frame(frames, event); });
  return frames;
}

asio::awaitable<void> RunAndFollow(RouteDeps& deps, std::shared_ptr<StreamedRun> run,
                                   std::shared_ptr<StreamTicket> ticket,
                                   std::shared_ptr<StreamFormat> format, ResponseStream& out) {
  const auto executor = co_await asio::this_coro::executor;
  // Shared with the handlers, which may run after this coroutine: they check its stage first.
  auto follower = std::make_shared<LateFollower>(executor);
  follower->timer.async_wait(
      [&deps, &out, follower, run, ticket, format](const boost::system::error_code& ec) {
        if (ec || follower->stage != LateFollower::Stage::kWaiting) return;
        follower->stage = LateFollower::Stage::kFollowing;
        asio::co_spawn(
            follower->timer.get_executor(),
            FollowRun(deps, RunCursor{run->run_id(), 0, run->channel(), nullptr}, Clock::now(),
                      /*drain_ends=*/false, ticket, format, out),
            [follower, run](std::exception_ptr failed) {
              if (failed)
                log::Error("run_follower_failed", {{"run_id", std::string_view(run->run_id())}});
              follower->stage = LateFollower::Stage::kFollowerReturned;
              follower->timer.cancel();
            });
      });
  try {
    co_await run->Run();
  } catch (const std::exception& e) {
    // Its follower, if it has one, must be done with `out` before this returns.
    log::Error("run_failed", {{"run_id", std::string_view(run->run_id())},
                              {"error", std::string_view(e.what())}});
  }
  if (follower->stage == LateFollower::Stage::kWaiting) {
    follower->stage = LateFollower::Stage::kRunEndedFirst;
    follower->timer.cancel();
    // A named string, not a temporary across the co_await (GCC 12).
    std::string frames = AllFrames(*run->channel(), *format);
    co_await out.WriteLast(std::move(frames));
    co_return;
  }
  // The follower has the run's terminal event in its channel: it ends, or has.
  while (follower->stage != LateFollower::Stage::kFollowerReturned) {
    follower->timer.expires_at(asio::steady_timer::time_point::max());
    co_await follower->timer.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

// When the client hangs up, its stream's place goes back at once (not at the stream's next write)
// and, with `cancel_run` ("on_disconnect": "cancel"), the run is canceled. Never returns: the
// stream's end wins the race otherwise.
asio::awaitable<void> WatchHangUp(RouteDeps& deps, Request& request, std::string run_id,
                                  std::shared_ptr<StreamTicket> ticket, bool cancel_run) {
  co_await request.client_closed();
  if (cancel_run) deps.runs.CancelStreamed(run_id);
  ticket->Stop("client_gone", "the client closed its connection");
  asio::steady_timer forever(co_await asio::this_coro::executor,
                             asio::steady_timer::time_point::max());
  co_await forever.async_wait(asio::as_tuple(asio::use_awaitable));
}

asio::awaitable<void> FollowUntilHangUp(RouteDeps& deps, std::string run_id, std::int64_t after,
                                        std::shared_ptr<StreamTicket> ticket,
                                        std::shared_ptr<StreamFormat> format, Request& request,
                                        bool cancel_run, ResponseStream& out) {
  using namespace asio::experimental::awaitable_operators;
  // A named cursor: GCC 12 destroys a class temporary of a co_await's expression twice.
  RunCursor cursor{run_id, after, nullptr, nullptr};
  co_await (FollowRun(deps, std::move(cursor), Clock::now() + kFirstLook, /*drain_ends=*/true,
                      ticket, std::move(format), out) ||
            WatchHangUp(deps, request, run_id, ticket, cancel_run));
}

// Its head says it is not to be cached or held back (ResponseHead, for every stream).
Response EventStreamResponse() {
  Response response;
  response.content_type = "text/event-stream";
  response.headers.reserve(2);  // its run's Location, then the server's X-Request-Id
  return response;
}

}  // namespace

std::shared_ptr<StreamFormat> RunEventsFormat() {
  return std::make_shared<RunEventFrames>();
}

Response RunEventStream(RouteDeps& deps, std::string run_id, std::int64_t after,
                        std::shared_ptr<StreamTicket> ticket, Request& request,
                        bool cancel_on_hang_up, std::shared_ptr<StreamFormat> format) {
  Response response = EventStreamResponse();
  if (!format) format = RunEventsFormat();
  response.stream = [&deps, run_id = std::move(run_id), after, ticket = std::move(ticket), &request,
                     cancel_on_hang_up, format = std::move(format)](ResponseStream& out) {
    return FollowUntilHangUp(deps, run_id, after, ticket, format, request, cancel_on_hang_up, out);
  };
  return response;
}

Response OwnRunStream(RouteDeps& deps, std::shared_ptr<StreamedRun> run,
                      std::shared_ptr<StreamTicket> ticket, std::shared_ptr<StreamFormat> format) {
  Response response = EventStreamResponse();
  if (!format) format = RunEventsFormat();
  response.stream = [&deps, run = std::move(run), ticket = std::move(ticket),
                     format = std::move(format)](ResponseStream& out) {
    return RunAndFollow(deps, run, ticket, format, out);
  };
  return response;
}

Response DecidedRunResponse(const RouteDeps& deps, const Runs::DecideAnswer& answer) {
  if (const auto* running = std::get_if<RunRecord>(&answer)) {
    Response accepted = JsonResponse(202, RunBody(*running));
    accepted.headers.emplace_back("Location", RunLocation(deps, running->id));
    return accepted;
  }
  return JsonTextResponse(200, InvokeBodyText(std::get<InvokeResult>(answer)));
}

}  // namespace agentgate::http
