#include "runtime/runs/run_watches.hpp"

#include "domain/runs/run_events.hpp"
#include "observability/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <optional>
#include <vector>

namespace agentgate {

namespace asio = boost::asio;

namespace {
constexpr int kEventsPerRead = 500;
constexpr int kUntoldRunningLookEvery = 10;  // looks' periods, for a run whose writes are told
}  // namespace

// What the looks of one watch keep between them, on the executor they run on.
struct RunWatches::Looker {
  Looker(std::string id, const asio::any_io_executor& executor)
      : run_id(std::move(id)), timer(executor) {}
  const std::string run_id;
  std::weak_ptr<RunWatch> watch;  // its followers hold it
  asio::steady_timer timer;       // the wait between looks; canceled to look at once
  std::atomic<bool> poked{false};
  std::optional<RunStatus> status;  // as the last look found it
  std::int64_t seen = 0;            // the last event read
};

RunWatches::RunWatches(StoreRunner& store, RunWatchesOptions options)
    : store_(store), options_(options) {}

RunWatches::~RunWatches() = default;

std::shared_ptr<RunWatch> RunWatches::Watch(const std::string& run_id,
                                            const asio::any_io_executor& executor) {
  std::shared_ptr<Looker> looker;
  std::shared_ptr<RunWatch> watch;
  {
    std::lock_guard lock(mutex_);
    auto& slot = watched_[run_id];
    if (slot) {
      if (auto existing = slot->watch.lock()) return existing;
    }
    // None, or one whose followers all left (its looks end at their next wake): a new one.
    watch = std::make_shared<RunWatch>(run_id, options_.max_events);
    looker = std::make_shared<Looker>(run_id, executor);
    looker->watch = watch;
    slot = looker;
  }
  asio::co_spawn(executor, Look(looker), asio::detached);
  return watch;
}

void RunWatches::Changed(const std::string& run_id) {
  std::shared_ptr<Looker> looker;
  {
    std::lock_guard lock(mutex_);
    auto it = watched_.find(run_id);
    if (it == watched_.end()) return;
    looker = it->second;
  }
  Poke(looker);
}

void RunWatches::ChangedAll() {
  std::vector<std::shared_ptr<Looker>> all;
  {
    std::lock_guard lock(mutex_);
    all.reserve(watched_.size());
    for (const auto& [id, looker] : watched_) all.push_back(looker);
  }
  for (const auto& looker : all) Poke(looker);
}

void RunWatches::Entered(const std::string& run_id) {
  std::shared_ptr<RunWatch> watch;
  {
    std::lock_guard lock(mutex_);
    auto it = watched_.find(run_id);
    if (it == watched_.end()) return;
    watch = it->second->watch.lock();
  }
  if (watch) watch->events_.Wake();
}

std::size_t RunWatches::size() const {
  std::lock_guard lock(mutex_);
  return watched_.size();
}

void RunWatches::Poke(const std::shared_ptr<Looker>& looker) {
  // The flag first: a look under way when the cancel lands looks once more after it.
  looker->poked = true;
  asio::post(looker->timer.get_executor(), [looker] { looker->timer.cancel(); });
}

void RunWatches::Forget(const std::shared_ptr<Looker>& looker) {
  std::lock_guard lock(mutex_);
  auto it = watched_.find(looker->run_id);
  if (it != watched_.end() && it->second == looker) watched_.erase(it);
}

asio::awaitable<void> RunWatches::Look(std::shared_ptr<Looker> looker) {
  for (;;) {
    {
      auto watch = looker->watch.lock();
      if (!watch) break;  // nobody follows it here any more
      looker->poked = false;
      bool more = true;
      try {
        more = co_await LookOnce(*looker, *watch);
      } catch (const std::exception& e) {
        log::Error("run_watch_failed", {{"run_id", std::string_view(looker->run_id)},
                                        {"error", std::string_view(e.what())}});
      }
      if (!more) break;
    }
    if (looker->poked.exchange(false)) continue;
    // A run running on another server that tells of its writes is looked at when it does, and
    // seldom besides (news lost where nothing reconnected: a pooler that drops LISTEN).
    const bool told = options_.told_of_writes && looker->status == RunStatus::kRunning;
    looker->timer.expires_after(told ? kUntoldRunningLookEvery * options_.look_every
                                     : options_.look_every);
    co_await looker->timer.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  Forget(looker);
}

asio::awaitable<bool> RunWatches::LookOnce(Looker& looker, RunWatch& watch) {
  const std::string run_id = looker.run_id;  // a copy: GCC 12 loses local references
  // The run first: when it had ended, its end's event is among the events read after it.
  auto run = co_await store_.Run([&](Store& s) { return s.GetRun(run_id); });
  if (!run) co_return true;  // the store is away: the next look tries again
  if (!*run) {
    watch.gone_ = true;
    watch.looked_ = true;
    watch.events_.Wake();
    co_return false;
  }
  const RunStatus status = (*run)->status;
  const bool changed = looker.status != status;
  looker.status = status;
  // A waiting run writes no events: only a change of its state, or a running one, is read.
  if (changed || status == RunStatus::kRunning || HasEnded(status)) {
    for (;;) {
      auto events = co_await store_.Run(
          [&](Store& s) { return s.ListRunEvents(run_id, looker.seen, kEventsPerRead); });
      if (!events) co_return true;
      for (auto& event : *events) {
        looker.seen = event.seq;
        watch.events_.Add(std::move(event));
      }
      if (events->size() < static_cast<std::size_t>(kEventsPerRead)) break;
    }
  }
  // Its followers see its new state without an event (it started here: they move to its channel).
  watch.looked_ = true;
  if (changed) watch.events_.Wake();
  co_return !(HasEnded(status) && watch.events_.Ended());
}

}  // namespace agentgate
