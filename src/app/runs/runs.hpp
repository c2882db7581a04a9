#pragma once
// Background runs as the caller sees them (docs/runs.md): queue one once it passed every admission
// check of a plain invoke, read it, cancel it, and follow its events. RunWorker runs them.

#include "app/runs/run_worker.hpp"
#include "app/runs/stream_roster.hpp"
#include "app/turn/invoke_agent.hpp"

#include <chrono>
#include <functional>
#include <variant>

namespace agentgate {

struct RunsOptions {
  int max_queued_per_org = 10000;
  std::chrono::milliseconds cancel_wait{5000};  // a cancel waits this long for its run to end
  // A server alone on its store (SQLite) writes a stateless streamed run that asked for no
  // webhook when it has run for a moment or has ended, not when it starts: a short one is written
  // once (docs/runs.md). On a shared store every run is written as it starts, for other servers.
  bool write_short_streamed_runs_at_end = false;
};

// What a background or streamed invoke gets: the stored answer of the call that used its key
// first, or the run it started, or why not.
using QueueAnswer = std::variant<StoredResponse, Result<RunRecord>>;

// What a streamed invoke gets: as a queued one, and the run handed to the caller to run, when it
// asked for it and the run started.
struct StreamAnswer {
  QueueAnswer answer;
  std::shared_ptr<StreamedRun> handed;
};

// What a follower's look found: how many events it was given, and whether the run's terminal
// event is among those it has.
struct RunEventsRead {
  std::size_t events = 0;
  bool ended = false;
};
// Each event a look finds, in order. A run's events running here are given where they are, under
// its channel's lock: the sink must not block.
using RunEventSink = std::function<void(const RunEvent&)>;

// Where a follower of one run is: the last event it has, and where its next ones come from: the
// run's channel here while it runs here (kept to the run's end here: its last events may reach
// the follower after the run left the worker), else the run's watch here (RunWatches).
struct RunCursor {
  std::string run_id;
  std::int64_t after_seq = 0;
  std::shared_ptr<RunChannel> channel;
  std::shared_ptr<RunWatch> watch;
};

class Runs {
 public:
  Runs(InvokeAgent& invoke, Idempotency& idempotency, TenantDirectory& tenants, StoreRunner& store,
       TurnCommitter& writer, RunWorker& worker, const Clock& clock, RunsOptions options)
      : invoke_(invoke),
        idempotency_(idempotency),
        tenants_(tenants),
        store_(store),
        writer_(writer),
        worker_(worker),
        clock_(clock),
        options_(options) {}

  // Admits the call as a plain invoke's (404, 403), claims its key (409, 422, or the stored 202),
  // checks where its turn will run (InvokeAgent::AdmitAhead) and queues it (429 queue_full past
  // the organization's bound); the 202 is its key's stored answer, written with the run.
  // `notify`: its end is delivered to its environment's webhooks (docs/webhooks.md).
  boost::asio::awaitable<QueueAnswer> Queue(const InvokeCall& call, bool notify = true);
  // A streamed turn (Accept: text/event-stream or "stream": true): admitted as Queue admits, but
  // waiting its turn on a busy conversation like a plain call, then started here at once as a run
  // its caller follows. With a key, the turn's commit stores the way in's answer for it (the
  // call's `answer`: an OpenAI stream's whole stream; /api renders none, and stores the plain
  // call's 200 body).
  // With `hand_over`, the run is registered but handed to the caller in the answer, to run in its
  // own coroutine (StreamedRun::Run); one the caller drops unrun starts beside it.
  boost::asio::awaitable<StreamAnswer> Stream(const InvokeCall& call, bool notify = false,
                                              bool hand_over = false) {
    return Begin(call, notify, BeginAs{true, hand_over});
  }
  // The run, if the caller may see it: 404 run_not_found for none or another organization's or
  // environment's, 403 without chat on its agent.
  boost::asio::awaitable<Result<RunRecord>> Get(const Caller& caller, const std::string& run_id);
  // Ends a queued run canceled at once; a running one is canceled like a capped turn, waited for
  // up to cancel_wait. 409 run_ended for a completed or failed run; a canceled one is as it was.
  boost::asio::awaitable<Result<RunRecord>> Cancel(const Caller& caller, const std::string& run_id);
  // The operator's view (the admin API, the console): an environment's latest runs, and a cancel
  // that needs no grant. 404 run_not_found for another environment's run.
  boost::asio::awaitable<Result<std::vector<RunRecord>>> List(const std::string& org_id,
                                                              const std::string& env, int limit);
  boost::asio::awaitable<Result<RunRecord>> CancelAsOperator(const std::string& org_id,
                                                             const std::string& env,
                                                             const std::string& run_id);
  // A person's decisions on a paused run's calls (docs/daemon.md, Tool approvals): 404
  // run_not_found as Get, 403 without `approve` on its agent, 409 run_not_paused for a run not
  // waiting (or decided by another meanwhile), 410 approval_expired past its expiry, 400 naming
  // the field for a decision that is not one per pending call. The run then goes on here: awaited
  // for its result, or in the background (the run as it stands, running).
  using DecideAnswer = std::variant<InvokeResult, RunRecord>;
  boost::asio::awaitable<Result<DecideAnswer>> Decide(const Caller& caller,
                                                      const std::string& run_id,
                                                      ApprovalRequest request);
  // The operator's decision (the admin API, the console): as Decide, with no grant needed.
  boost::asio::awaitable<Result<DecideAnswer>> DecideAsOperator(const std::string& org_id,
                                                                const std::string& env,
                                                                const std::string& run_id,
                                                                ApprovalRequest request);
  // Ends paused runs nobody decided in time (maintenance): how many.
  boost::asio::awaitable<Result<std::int64_t>> ExpirePaused();
  // A streamed run whose caller hung up asking for it ("on_disconnect": "cancel"): it runs here.
  void CancelStreamed(const std::string& run_id) { worker_.CancelHere(run_id); }
  // Gives `each` the events after the cursor's, waiting up to `wait` for some (none then); the
  // cursor moves past them. `until_end`: a run running here is waited for until it ends or `wait`
  // passes, not until its next event (all of a quick run's events at once). A stopped `ticket`
  // (the stream's right to go on is gone) ends the wait at once.
  boost::asio::awaitable<Result<RunEventsRead>> NextEvents(RunCursor& cursor,
                                                           std::chrono::milliseconds wait,
                                                           const RunEventSink& each,
                                                           bool until_end = false,
                                                           StreamTicket* ticket = nullptr);

 private:
  // Queued (not streamed), or streamed: started here, or handed to the caller to run.
  struct BeginAs {
    bool streamed = false;
    bool hand_over = false;
  };
  boost::asio::awaitable<StreamAnswer> Begin(const InvokeCall& call, bool notify, BeginAs as);
  boost::asio::awaitable<Result<RunRecord>> CancelFound(RunRecord run);
  // The run as this server's registry has it, else from the store.
  boost::asio::awaitable<Result<std::optional<RunRecord>>> Find(const std::string& run_id);
  boost::asio::awaitable<Result<DecideAnswer>> DecideFound(RunRecord found,
                                                           ApprovalRequest request);
  // Begin's steps: the new run written (its create refused when its key was taken meanwhile or
  // the queue is full), and a queued interrupting run's supersession of what is ahead of it.
  boost::asio::awaitable<Result<RunRecord>> Create(RunRecord run,
                                                   const std::optional<ClaimedKey>& key,
                                                   bool streamed);
  boost::asio::awaitable<void> SupersedeAhead(const RunRecord& run);
  // A new run's record, for a command admitted to `place`.
  RunRecord NewRun(const InvokeCommand& command, const QueuedPlace& place, bool streamed,
                   bool notify) const;
  // Why a run's create was refused, if it was: its key taken meanwhile, or the queue full.
  static std::optional<Error> RefusalOfCreate(const Result<bool>& created, int max_queued);

  InvokeAgent& invoke_;
  Idempotency& idempotency_;
  TenantDirectory& tenants_;
  StoreRunner& store_;
  TurnCommitter& writer_;  // creates runs in the store's group commit
  RunWorker& worker_;
  const Clock& clock_;
  const RunsOptions options_;
};

}  // namespace agentgate
