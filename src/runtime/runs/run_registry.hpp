#pragma once
// The runs running on this server (docs/runs.md, "Where a run is kept"): each one's cancel, its
// channel (its followers here read its events from it, as they happen) and what this server
// knows of it ahead of the store. A run is entered before it starts, so its followers find its
// events from the first, and leaves once its end is in the store, so a lookup that misses here
// finds the store up to date. Any thread.

#include "ports/store_records.hpp"
#include "runtime/runs/run_channel.hpp"
#include "runtime/turn_cancel.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace agentgate {

// How a run came to run here: claimed from the queue (it counts against the worker's room), a
// streamed turn's, or a paused run going on once decided.
enum class RunKind { kBackground, kStreamed, kResumed };

class RunRegistry {
 public:
  // Told, with the run's id, each time a run enters (its followers here may move to its channel).
  using EnteredHook = std::function<void(const std::string& run_id)>;

  // A run's channel keeps at most `max_events` of its events.
  explicit RunRegistry(std::size_t max_events, EnteredHook entered = {})
      : max_events_(max_events), entered_(std::move(entered)) {}

  // What a registered run is given: its cancel (on the executor it runs on) and its channel.
  struct Entered {
    std::shared_ptr<TurnCancel> cancel;
    std::shared_ptr<RunChannel> channel;
  };
  // Enters the run, with a new channel open before it starts. `unwritten`: the run as it started,
  // when the store does not have it yet (Ahead() answers with it meanwhile). `starts_after`: the
  // last event it had before (a resumed run's pause), which its channel's first event follows.
  Entered Register(const std::string& run_id, RunKind kind,
                   std::shared_ptr<const RunRecord> unwritten,
                   const boost::asio::any_io_executor& executor, std::int64_t starts_after = 0);
  // The run ended as `ended` says: Ahead() answers with that until Ended(), while its end's write
  // is on its way (its followers may have its terminal event already).
  void Ending(const RunRecord& ended);
  // The run ended or paused and its end is written: it no longer runs here. How it ran, if it did.
  std::optional<RunKind> Ended(const std::string& run_id);

  // The run as this server has it ahead of the store, if it does: as it ended, while its end is
  // being written; as it started, while it runs unwritten.
  std::optional<RunRecord> Ahead(const std::string& run_id) const;
  // Its channel while it runs here; null when it does not.
  std::shared_ptr<RunChannel> Channel(const std::string& run_id) const;
  // Cancels the run if it runs here; false when it does not.
  bool Cancel(const std::string& run_id);
  std::size_t Running() const;  // every kind
  int RunningBackground() const;

 private:
  struct Registered {
    std::shared_ptr<TurnCancel> cancel;
    std::shared_ptr<RunChannel> channel;
    RunKind kind = RunKind::kBackground;
    // What this server knows of it ahead of the store: nothing (the store has it as it is), the
    // run as it started (not written yet), or as it ended (its end's write on its way).
    enum class Ahead { kNothing, kUnwritten, kEnding };
    Ahead ahead = Ahead::kNothing;
    std::shared_ptr<const RunRecord> record{};  // kUnwritten: as it started; kEnding: as it ended
  };

  const std::size_t max_events_;
  const EnteredHook entered_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Registered> running_;
  int background_ = 0;
};

}  // namespace agentgate
