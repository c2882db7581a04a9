// A person's decisions on a paused run (docs/daemon.md, Tool approvals): checked, claimed once
// across servers, and the run goes on here; and the paused runs nobody decided in time end.
#include "app/runs/runs.hpp"

#include "domain/runs/run_state.hpp"

#include <limits>

namespace agentgate {

namespace asio = boost::asio;

namespace {

constexpr int kExpiredPerPass = 500;

Error NotPaused(const RunRecord& run) {
  return Error(ErrorCode::kRunNotPaused, "run '" + run.id + "' is " +
                                             std::string(RunStatusName(run.status)) +
                                             ", not waiting for a decision");
}

Error Expired(const RunRecord& run) {
  return Error(ErrorCode::kApprovalExpired,
               "run '" + run.id + "' waited longer than approval_timeout_seconds for a decision");
}

}  // namespace

asio::awaitable<Result<Runs::DecideAnswer>> Runs::Decide(const Caller& caller,
                                                         const std::string& run_id,
                                                         ApprovalRequest request) {
  AG_CO_TRY(auto found, co_await store_.Run([&](Store& s) { return s.GetRun(run_id); }));
  if (!found || found->org_id != caller.org_id || found->env != caller.env)
    co_return Error(ErrorCode::kRunNotFound, "run '" + run_id + "' not found");
  // Approving, denying and editing need `approve`; answering (or declining) the model's
  // questions, `chat`.
  const bool answers = !request.answered.empty() || !request.declined.empty();
  if (request.Approves() || !answers)
    AG_CO_TRYV(co_await Authorize(tenants_, caller, found->agent_id, "approve"));
  if (answers) AG_CO_TRYV(co_await Authorize(tenants_, caller, found->agent_id, "chat"));
  co_return co_await DecideFound(std::move(*found), std::move(request));
}

asio::awaitable<Result<Runs::DecideAnswer>> Runs::DecideAsOperator(const std::string& org_id,
                                                                   const std::string& env,
                                                                   const std::string& run_id,
                                                                   ApprovalRequest request) {
  AG_CO_TRY(auto found, co_await store_.Run([&](Store& s) { return s.GetRun(run_id); }));
  if (!found || found->org_id != org_id || found->env != env)
    co_return Error(ErrorCode::kRunNotFound, "run '" + run_id + "' not found");
  co_return co_await DecideFound(std::move(*found), std::move(request));
}

asio::awaitable<Result<Runs::DecideAnswer>> Runs::DecideFound(RunRecord found_run,
                                                              ApprovalRequest request) {
  const RunRecord* found = &found_run;
  const std::string run_id = found->id;
  if (found->status != RunStatus::kRequiresAction) co_return NotPaused(*found);
  const std::int64_t now = clock_.NowMs();
  if (found->expires_at_ms <= now) co_return Expired(*found);
  AG_CO_TRY(auto paused, ParsePausedTurn(found->paused_json));
  AG_CO_TRYV(CheckDecisions(request, paused.needs_approval));
  AG_CO_TRYV(CheckEditedArguments(request, paused));
  AG_CO_TRYV(CheckAnswers(request, paused));
  AG_CO_TRY(const auto events, co_await store_.Run([&](Store& s) {
    return s.ListRunEvents(run_id, 0, std::numeric_limits<int>::max());
  }));
  const std::int64_t after_seq = events.empty() ? 0 : events.back().seq;
  // One conditional write decides: a second decision, here or on another server, finds the run
  // no longer paused. In the background it goes back to the queue, to start where a server has
  // room (max_concurrent counts it as any background run); else it goes on here, for its decider.
  std::optional<RunRecord> decided;
  if (request.background) {
    const std::string queued = DecidedRunJson(DecidedRun{request.decisions, after_seq});
    AG_CO_TRY(decided, co_await store_.Run(
                           [&](Store& s) { return s.QueueDecidedRun(run_id, queued, now); }));
  } else {
    AG_CO_TRY(decided, co_await store_.Run([&](Store& s) {
      return s.ClaimPausedRun(run_id, worker_.server_id(), now);
    }));
  }
  if (!decided) {
    AG_CO_TRY(auto again, co_await store_.Run([&](Store& s) { return s.GetRun(run_id); }));
    if (again && again->status == RunStatus::kRequiresAction) co_return Expired(*again);
    co_return NotPaused(again ? *again : *found);
  }
  if (request.background) {
    worker_.Wake();
    co_return DecideAnswer(std::move(*decided));
  }
  Resumption resumption{std::move(paused), std::move(request.decisions), after_seq};
  AG_CO_TRY(auto result, co_await worker_.Continue(std::move(*decided), std::move(resumption)));
  co_return DecideAnswer(std::move(result));
}

asio::awaitable<Result<std::int64_t>> Runs::ExpirePaused() {
  const std::int64_t now = clock_.NowMs();
  const RunEvent expired =
      run_events::Failed(run_state::EndingError(RunEnding::kExpired, RunStatus::kRequiresAction));
  auto ended = co_await store_.Run(
      [&](Store& s) { return s.ExpirePausedRuns(now, kExpiredPerPass, expired); });
  co_return ended;
}

}  // namespace agentgate
