#include "runtime/runs/run_claimer.hpp"

#include "observability/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentgate {

namespace asio = boost::asio;

struct RunClaimer::Timer {
  explicit Timer(const asio::any_io_executor& executor) : timer(executor) {}
  asio::steady_timer timer;
};

RunClaimer::RunClaimer(StoreRunner& store, const ServerLease& server, RunRegistry& registry,
                       const Clock& clock, RunClaimerOptions options, Launch launch)
    : store_(store),
      server_(server),
      registry_(registry),
      clock_(clock),
      options_(options),
      launch_(std::move(launch)) {}

RunClaimer::~RunClaimer() {
  // Its store call would come back to freed memory: a shutdown whose drain ran out of time.
  if (looping_) log::Error("run_claimer_destroyed_while_looping", {});
}

void RunClaimer::Start(const asio::any_io_executor& executor) {
  timer_ = std::make_unique<Timer>(executor);
  looping_ = true;
  asio::co_spawn(executor, Loop(), asio::detached);
}

void RunClaimer::Wake() {
  if (!timer_) return;
  woken_ = true;
  asio::post(timer_->timer.get_executor(), [this] { timer_->timer.cancel(); });
}

void RunClaimer::Stop() {
  stopping_ = true;
  Wake();
}

asio::awaitable<void> RunClaimer::Loop() {
  while (!stopping_) {
    bool failed = false;
    try {
      co_await ClaimWhileQueued();
    } catch (const std::exception& e) {
      // Never silently: a loop that stopped would leave every queued run queued.
      log::Error("runs_claim_loop_failed", {{"error", std::string_view(e.what())}});
      failed = true;
    }
    if (woken_ && !failed) continue;
    timer_->timer.expires_after(options_.poll);
    co_await timer_->timer.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  looping_ = false;
}

asio::awaitable<void> RunClaimer::ClaimWhileQueued() {
  for (bool more_queued = true; more_queued && !stopping_;) {
    woken_ = false;
    const int room = options_.max_concurrent - registry_.RunningBackground();
    more_queued = false;
    if (room > 0) {
      const std::int64_t now = clock_.NowMs();
      auto claimed = co_await store_.Run([&](Store& s) {
        return s.ClaimRuns(server_.id(), now, room, options_.max_running_per_org);
      });
      if (claimed) {
        more_queued = static_cast<int>(claimed->size()) == room;
        for (auto& run : *claimed) launch_(std::move(run));
      } else {
        log::Warn("runs_claim_failed", {{"error", std::string_view(claimed.error().message)}});
      }
    }
    if (registry_.Running() > 0) {
      auto to_cancel = co_await store_.Run([&](Store& s) { return s.RunsToCancel(server_.id()); });
      if (to_cancel) {
        for (const auto& id : *to_cancel) registry_.Cancel(id);
      }
    }
    if (options_.interrupts != nullptr && options_.interrupts->size() > 0) {
      auto superseded =
          co_await store_.Run([&](Store& s) { return s.SupersededTickets(server_.id()); });
      if (superseded) options_.interrupts->InterruptAll(*superseded);
    }
  }
}

}  // namespace agentgate
