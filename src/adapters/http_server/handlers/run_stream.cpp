#include "adapters/http_server/handlers/run_stream.hpp"

#include "adapters/http_server/responses.hpp"
#include "app/invoke_body.hpp"
#include "app/run_body.hpp"

#include "domain/runs/run_events.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

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

// The run's events after `after` until its terminal one, or until the client leaves, the store
// fails or the server drains (the client then resumes from its Last-Event-ID, here or elsewhere).
asio::awaitable<void> FollowRun(RouteDeps& deps, std::string run_id, std::int64_t after,
                                ResponseStream& out) {
  using Clock = std::chrono::steady_clock;
  const auto head_by = Clock::now() + kFirstLook;
  RunCursor cursor{std::move(run_id), after, nullptr};
  if (deps.draining()) co_return;
  std::string frames;
  frames.reserve(kFramesRoom);
  const RunEventSink frame = [&frames](const RunEvent& event) { AppendSseFrame(frames, event); };
  // The head's events: those until kFirstLook, gathered, not woken for one by one.
  bool ended = false;
  for (auto now = Clock::now(); !ended && now < head_by; now = Clock::now()) {
    const auto left = std::chrono::ceil<milliseconds>(head_by - now);
    auto read = co_await deps.runs.NextEvents(cursor, left, frame, /*until_end=*/true);
    if (!read) co_return;
    ended = read->ended;
    if (read->events == 0) break;
  }
  if (ended) {
    co_await out.WriteLast(std::move(frames));
    co_return;
  }
  if (frames.empty()) frames = kSseKeepAlive;
  if (!co_await out.Write(std::move(frames))) co_return;
  auto quiet_since = Clock::now();
  while (!deps.draining()) {
    frames.clear();  // moved from: its room went with the send
    auto read = co_await deps.runs.NextEvents(cursor, kLookEvery, frame);
    if (!read) co_return;
    const auto now = Clock::now();
    if (read->ended) {
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

// Cancels the run when the client hangs up; the stream's end wins the race otherwise.
asio::awaitable<void> CancelOnHangUp(RouteDeps& deps, Request& request, std::string run_id) {
  co_await request.client_closed();
  deps.runs.CancelStreamed(run_id);
  asio::steady_timer forever(co_await asio::this_coro::executor,
                             asio::steady_timer::time_point::max());
  co_await forever.async_wait(asio::as_tuple(asio::use_awaitable));
}

asio::awaitable<void> FollowOrCancel(RouteDeps& deps, std::string run_id, std::int64_t after,
                                     Request& request, ResponseStream& out) {
  using namespace asio::experimental::awaitable_operators;
  co_await (FollowRun(deps, run_id, after, out) || CancelOnHangUp(deps, request, run_id));
}

}  // namespace

Response RunEventStream(RouteDeps& deps, std::string run_id, std::int64_t after,
                        Request* hang_up_cancels) {
  Response response;
  response.content_type = "text/event-stream";
  response.headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
  response.stream = [&deps, run_id = std::move(run_id), after,
                     hang_up_cancels](ResponseStream& out) {
    if (hang_up_cancels) return FollowOrCancel(deps, run_id, after, *hang_up_cancels, out);
    return FollowRun(deps, run_id, after, out);
  };
  return response;
}

Response DecidedRunResponse(const Runs::DecideAnswer& answer) {
  if (const auto* running = std::get_if<RunRecord>(&answer)) {
    Response accepted = JsonResponse(202, RunBody(*running));
    accepted.headers.emplace_back("location", "/api/runs/" + running->id);
    return accepted;
  }
  return JsonTextResponse(200, InvokeBodyText(std::get<InvokeResult>(answer)));
}

}  // namespace agentgate::http
