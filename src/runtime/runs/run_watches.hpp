#pragma once
// The runs followed on this server that do not run here: queued, paused, running on another
// server, or ended (docs/runs.md, "How events reach a follower"). Each has one watch here, however
// many follow it: the watch reads the run and its new events from the store for all of them, once
// a second while the run waits (queued, paused) or runs elsewhere unannounced, and at once when
// told it changed (it started here, or the store said another server wrote it). Its followers read
// its events from its channel, as a running run's followers read the run's own. A watch lives while
// a follower holds it, and its looks end with the run's end.

#include "runtime/runs/run_channel.hpp"
#include "runtime/store_runner.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace agentgate {

// One watched run, as its latest look found it.
class RunWatch {
 public:
  RunWatch(std::string run_id, std::size_t max_events)
      : run_id_(std::move(run_id)), events_(max_events, 0, RunChannel::EndsAt::kEnd) {}

  const std::string& run_id() const { return run_id_; }
  // Its events in order as the looks read them, ending with its end's event once it ended.
  RunChannel& events() { return events_; }
  // The look found no such run (it never was, or was deleted): its followers end.
  bool gone() const { return gone_.load(); }
  // Its first look is done: what the store had then is in its events (a follower arriving waits
  // for it, however short its own wait).
  bool looked() const { return looked_.load(); }

 private:
  friend class RunWatches;
  const std::string run_id_;
  RunChannel events_;
  std::atomic<bool> gone_{false};
  std::atomic<bool> looked_{false};
};

struct RunWatchesOptions {
  std::chrono::milliseconds look_every{1000};
  std::size_t max_events = 2000;  // as a run's own channel keeps
  // The store tells this server of every write of a run by another (PostgreSQL's notices): a run
  // running elsewhere is then looked at when told, its events arriving as they are written (and
  // every ten seconds besides, should news be lost); a waiting one still once a second.
  bool told_of_writes = false;
};

class RunWatches {
 public:
  RunWatches(StoreRunner& store, RunWatchesOptions options);
  ~RunWatches();

  // The run's watch, begun with a first look on `executor` when it has none here.
  std::shared_ptr<RunWatch> Watch(const std::string& run_id,
                                  const boost::asio::any_io_executor& executor);
  // Any thread: the run may have changed (it started here; another server wrote it): its watch,
  // if it has one, looks now.
  void Changed(const std::string& run_id);
  // Any thread: every watch looks now (news of some change may have been lost).
  void ChangedAll();
  // Any thread: the run started running here; its followers move to its own channel.
  void Entered(const std::string& run_id);
  std::size_t size() const;  // runs watched here

 private:
  struct Looker;
  boost::asio::awaitable<void> Look(std::shared_ptr<Looker> looker);
  // Reads what changed since the last look into the watch; false once nothing more will.
  boost::asio::awaitable<bool> LookOnce(Looker& looker, RunWatch& watch);
  void Poke(const std::shared_ptr<Looker>& looker);
  void Forget(const std::shared_ptr<Looker>& looker);

  StoreRunner& store_;
  const RunWatchesOptions options_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Looker>> watched_;
};

}  // namespace agentgate
