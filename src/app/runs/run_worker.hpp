#pragma once
// Runs this server's share of the background runs (docs/runs.md). The store is the queue: the
// worker's claimer (runtime/runs/run_claimer) claims the oldest queued runs whenever there is room
// (at most `max_concurrent` running here), and the worker runs each as a turn on the event loops
// in turn. A streamed turn's run is
// registered here at once and run in its response's own coroutine (StreamedRun). Every run running
// here is in the worker's registry (runtime/runs/run_registry): a run's cancel reaches it there
// directly, or through the store for a cancel asked of another server.

#include "app/turn/invoke_agent.hpp"
#include "runtime/runs/run_claimer.hpp"
#include "runtime/runs/run_registry.hpp"
#include "runtime/runs/run_watches.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace agentgate {

struct RunWorkerDeps {
  InvokeAgent& invoke;
  Idempotency& idempotency;  // a streamed turn's key: completed by its commit, else released
  TenantDirectory& tenants;
  StoreRunner& store;
  TurnCommitter& writer;  // the runs' events and ends, in the store's group commit
  ServerLease& server;    // names the runs this server claims
  const Clock& clock;
  Metrics& metrics;
  std::vector<boost::asio::any_io_executor> loops;  // runs go to them in turn
  int max_concurrent = 64;
  std::chrono::milliseconds poll{200};
  std::size_t max_events = 2000;                // a run's channel keeps at most these
  std::chrono::milliseconds write_behind{100};  // an event's wait for others to share its write
  // How often a run followed here that does not run here is looked at (RunWatches), and whether
  // the store tells of other servers' writes of runs (then a run running elsewhere is looked at
  // when it is written).
  std::chrono::milliseconds watch_look_every{1000};
  bool store_tells_of_run_writes = false;
  // Told when a run that notifies ended or paused here: its webhooks' deliveries are due.
  std::function<void()> webhooks_due{};
  // This server's turns in a conversation's line, on a store other servers share: the claimer
  // ends those a call on another server superseded.
  TurnInterrupts* interrupted_elsewhere = nullptr;
  // An organization's share of the background runs running across servers ([runs]
  // max_running_per_org): past it, its queued runs wait while other organizations' start.
  int max_running_per_org = std::numeric_limits<int>::max();
};

// A streamed turn as its call admitted it: its run starts from this, not from a stored request.
struct StreamedTurn {
  Caller caller;
  InvokeRequest request;
  AdmittedAgent agent;
  std::optional<SpanContext> trace;  // the call's span: the turn's spans go under it
  // What its commit stores for the call's Idempotency-Key: the way in's own answer (an OpenAI
  // stream's whole event stream), else the plain call's 200 body.
  AnswerRenderer answer = {};
};

class StreamedRun;
class RunRecorder;

// A paused run a person decided (docs/daemon.md, Tool approvals): where it paused, the decisions,
// and its last event so far.
struct Resumption {
  PausedTurn paused;
  std::vector<ApprovalDecision> decisions;
  std::int64_t after_seq = 0;
};

class RunWorker {
 public:
  explicit RunWorker(RunWorkerDeps deps);
  ~RunWorker();

  // Claims and runs queued runs on `executor` until Stop().
  void Start(const boost::asio::any_io_executor& executor) { claimer_.Start(executor); }
  // Any thread. A run was queued, or one ended: look for work now, not at the next poll.
  void Wake() { claimer_.Wake(); }
  // A streamed turn's run, on this server: registered at once (its channel open on return), run
  // by the caller in its own coroutine (StreamedRun::Run), or beside it, at once, once the caller
  // drops it unrun. Not counted against max_concurrent. With `key`, its commit completes the
  // call's Idempotency-Key with the plain call's 200 body; any other end releases it. It runs on
  // `executor`, its follower's, so that its events reach the follower without a thread hop.
  // `written`: created in the store already; else it is written with its first events' write or
  // once at its end (docs/runs.md), and Ahead() has it meanwhile.
  std::shared_ptr<StreamedRun> PrepareStreamed(const RunRecord& run,
                                               std::shared_ptr<const StreamedTurn> turn,
                                               std::optional<ClaimedKey> key,
                                               const boost::asio::any_io_executor& executor,
                                               bool written = true);
  // Any thread. The run as this server has it ahead of the store (RunRegistry::Ahead).
  std::optional<RunRecord> Ahead(const std::string& run_id) const {
    return registry_.Ahead(run_id);
  }
  // A paused run claimed on this server (now running) goes on where it paused, on the caller's
  // event loop, as a run its followers see: its result, once it completed, failed or paused again.
  boost::asio::awaitable<Result<InvokeResult>> Continue(RunRecord run, Resumption resumption);
  // Any thread. The run's channel while it runs here (its followers here read its events from it,
  // as they happen); null when it does not.
  std::shared_ptr<RunChannel> Channel(const std::string& run_id) const {
    return registry_.Channel(run_id);
  }
  // Any thread. The watch of a run followed here that does not run here (RunWatches), begun on
  // `executor` if it has none.
  std::shared_ptr<RunWatch> Watch(const std::string& run_id,
                                  const boost::asio::any_io_executor& executor) {
    return watches_.Watch(run_id, executor);
  }
  // Any thread. Another server wrote the run (its events, its state; the store's notices), or
  // perhaps any run (`run_id` empty: notices may have been lost): its watch here looks now.
  void RunChanged(const std::string& run_id) {
    run_id.empty() ? watches_.ChangedAll() : watches_.Changed(run_id);
  }
  // Any thread. Cancels the run if it runs here; false when it does not.
  bool CancelHere(const std::string& run_id) { return registry_.Cancel(run_id); }
  // Any thread. Claims no more runs; those running finish.
  void Stop() { claimer_.Stop(); }
  // Any thread. Since Stop(): its claimer's loop has ended and no run runs here; only then may
  // the worker be destroyed.
  bool Stopped() const { return claimer_.Stopped() && Running() == 0; }
  std::size_t Running() const { return registry_.Running(); }  // every kind
  const std::string& server_id() const { return d_.server.id(); }

 private:
  friend class StreamedRun;
  // How a run starts here: claimed from the queue (its request is in its record), a streamed
  // turn's (as its call admitted it, with the call's key), or a paused run going on.
  struct QueuedStart {};
  struct StreamedStart {
    std::shared_ptr<const StreamedTurn> turn;
    std::optional<ClaimedKey> key;
    std::shared_ptr<const RunRecord> unwritten;  // not in the store yet: as it started
  };
  struct ResumedStart {
    std::shared_ptr<const Resumption> resumption;
  };
  using RunStart = std::variant<QueuedStart, StreamedStart, ResumedStart>;
  struct QueuedRequest;
  void Launch(RunRecord run, RunStart start, const boost::asio::any_io_executor& executor);
  // Runs the run to its end or its pause; its result. A resumed run goes on from its resumption.
  // `run` as it started: one record, shared with the registry while it is unwritten.
  boost::asio::awaitable<Result<InvokeResult>> RunOne(std::shared_ptr<const RunRecord> run,
                                                      RunStart start,
                                                      std::shared_ptr<TurnCancel> cancel,
                                                      std::shared_ptr<RunChannel> channel);
  // Its steps: its turn run (a streamed, resumed or queued one), then its pause or its end written.
  boost::asio::awaitable<Result<InvokeResult>> RunTurn(const RunRecord& run, const RunStart& start,
                                                       const QueuedRequest* queued,
                                                       std::shared_ptr<TurnCancel> cancel,
                                                       RunRecorder& recorder,
                                                       const SpanContext* traced);
  boost::asio::awaitable<void> Pause(const RunRecord& run, const InvokeResult& result,
                                     RunRecorder& recorder, const SpanContext* traced);
  boost::asio::awaitable<void> Finish(const RunRecord& run, const Result<InvokeResult>& result,
                                      RunRecorder& recorder, const SpanContext* traced);
  boost::asio::awaitable<Result<InvokeResult>> ResumeTurn(const RunRecord& run,
                                                          const Resumption& resumption,
                                                          std::shared_ptr<TurnCancel> cancel,
                                                          RunRecorder& recorder);
  boost::asio::awaitable<Result<InvokeResult>> ExecuteTurn(const RunRecord& run,
                                                           const QueuedRequest& queued,
                                                           std::shared_ptr<TurnCancel> cancel,
                                                           RunRecorder& recorder);

  // The run ended or paused: it no longer runs here.
  void Ended(const std::string& run_id);

  RunWorkerDeps d_;
  std::atomic<std::size_t> next_loop_{0};
  RunWatches watches_;  // before the registry, which tells it when a watched run starts here
  RunRegistry registry_;
  RunClaimer claimer_;  // after the registry, which it reads
};

// A streamed turn's run, registered on this server (its cancel, its readers and other followers
// find it) and ready to run in its caller's own coroutine: a streamed invoke runs its turn in its
// response's coroutine, with no run coroutine beside it (docs/runs.md). One never run starts
// beside its caller when it goes.
class StreamedRun {
  struct Parts {  // what it needs to run, until it does
    std::shared_ptr<const RunRecord> run;
    RunWorker::RunStart start;
    std::shared_ptr<TurnCancel> cancel;
    boost::asio::any_io_executor executor;
  };

 public:
  // Only RunWorker makes one (PrepareStreamed).
  class Key {
    friend class RunWorker;
    Key() = default;
  };
  StreamedRun(Key, RunWorker& worker, Parts parts, std::shared_ptr<RunChannel> channel);
  StreamedRun(const StreamedRun&) = delete;
  StreamedRun& operator=(const StreamedRun&) = delete;
  ~StreamedRun();
  // Runs it to its end (once), on the executor it was prepared for; its result.
  boost::asio::awaitable<Result<InvokeResult>> Run();
  const std::string& run_id() const { return run_id_; }
  // Its events here, the terminal one too once Run returned.
  const std::shared_ptr<RunChannel>& channel() const { return channel_; }

 private:
  friend class RunWorker;
  RunWorker& worker_;
  std::optional<Parts> parts_;  // until it runs
  const std::string run_id_;
  const std::shared_ptr<RunChannel> channel_;
};

}  // namespace agentgate
