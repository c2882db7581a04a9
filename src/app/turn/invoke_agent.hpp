#pragma once
// POST /api/agents/{agent_id}/invoke as a use case (SPEC §5), for every way in (the HTTP invoke,
// the flow action, MCP's tools/call): admit the caller, claim its Idempotency-Key, and run one
// turn of the agent's model and tools under the soft deadline and the hard cap, with the safety
// policy, spend limits and stateful history. A turn is four phases (turn_*.cpp): prepare the
// prompt, run the model/tool loop, settle what it answers, commit it all or nothing.

#include "app/access/authenticate.hpp"
#include "app/turn/agent_catalog.hpp"
#include "app/turn/idempotency.hpp"
#include "app/turn/invoke_body.hpp"
#include "app/turn/tool_runner.hpp"
#include "config/config.hpp"
#include "domain/agent/invoke_request.hpp"
#include "domain/runs/paused_turn.hpp"
#include "observability/metrics.hpp"
#include "ports/clock.hpp"
#include "ports/model_client.hpp"
#include "runtime/conversation_queue.hpp"
#include "runtime/provider_pool.hpp"
#include "runtime/runs/run_end_in_commit.hpp"
#include "runtime/runs/turn_observer.hpp"
#include "runtime/server_lease.hpp"
#include "runtime/spend_ledger.hpp"
#include "runtime/tracer.hpp"
#include "runtime/turn_cancel.hpp"
#include "runtime/turn_committer.hpp"
#include "runtime/turn_interrupts.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <variant>

namespace agentgate {

struct TurnOutcome;
struct TurnPlace;  // app/turn/turn_place.hpp
struct TurnRun;    // app/turn/turn_run.hpp
struct TurnState;  // app/turn/turn_run.hpp

// The way in's own 200 body for a result: what a commit stores for its Idempotency-Key to replay.
using AnswerRenderer = std::function<StoredResponse(const InvokeResult&)>;

// One call as a way in makes it: the caller (authenticated), the agent, the request, and, when
// the call carries an Idempotency-Key, the key, the request's fingerprint and how the way in
// renders its answer. Everything referred to is the way in's own and outlives the call (it awaits
// it); the ways in name the fields they set.
struct InvokeCall {
  const Caller& caller;
  const std::string& agent_id;
  const InvokeRequest& request;
  const std::optional<std::string>& key;  // Idempotency-Key
  const std::string& fingerprint;         // with a key: what makes two calls the same request
  AnswerRenderer answer{};                // with a key
  std::shared_ptr<TurnCancel> cancel{};   // set when the caller may end the turn early
  TurnObserver* observer = nullptr;       // told each step (MCP progress)
  const SpanContext* trace = nullptr;     // the request's span: the turn's spans go under it
};

// Why a call is not run, in the contract's terms: its code (and so its HTTP status), a message
// naming the field at fault, and the details and Retry-After the contract gives it. Each way in
// renders it in its own shape: a JSON error, the flow action's fault, MCP's isError result.
using Refusal = Error;

// A caller admitted to chat with an agent deployed in its environment: only InvokeAgent::Admit
// makes one, so no turn runs, and no stored answer is replayed, for a caller that was not checked.
class AdmittedAgent {
 public:
  const std::shared_ptr<const LoadedAgent>& loaded() const { return loaded_; }

 private:
  friend class InvokeAgent;
  explicit AdmittedAgent(std::shared_ptr<const LoadedAgent> loaded) : loaded_(std::move(loaded)) {}
  std::shared_ptr<const LoadedAgent> loaded_;
};

// The Idempotency-Key a turn runs under: its commit completes the claim with `answer`'s rendering
// of the result, in the same transaction; a turn that does not commit releases it.
struct IdempotentCall {
  ClaimedKey key;
  const AnswerRenderer& answer;
};

// Whose turn an admitted turn is, and what only a run's turn carries.
// A call's own turn: it runs in its call and answers it (a plain call, the flow action, MCP).
struct CallsTurn {};
// A run's turn, begun or queued (docs/runs.md): its commit may write the run's end too.
struct RunsTurn {
  RunEndInCommit* end = nullptr;
  // A background run's new conversation takes the id it was given as the run was admitted.
  std::optional<std::string> new_conversation_id;
  // Its call was counted in its conversation's window as the run was admitted.
  bool call_counted = false;
  // A background run's turn on an existing conversation: its place in the conversation's line was
  // taken as it was queued, and the turn holds it.
  bool took_place_when_queued = false;
};
// A run's turn that goes on from a pause (docs/daemon.md, Tool approvals): where it paused and
// what a person decided of its waiting calls. Its call was counted when the run began.
struct ResumedRunsTurn {
  RunEndInCommit* end = nullptr;
  const PausedTurn* paused = nullptr;
  const std::vector<ApprovalDecision>* decisions = nullptr;
};
using TurnOrigin = std::variant<CallsTurn, RunsTurn, ResumedRunsTurn>;

// One admitted turn: its caller, agent and Idempotency-Key are its own; its request is the way
// in's, which keeps it for the turn's whole life (the largest part of a call, copied nowhere).
struct InvokeCommand {
  Caller caller;
  std::string agent_id;
  AdmittedAgent agent;
  const InvokeRequest& request;
  std::optional<IdempotentCall> idempotency;
  std::shared_ptr<TurnCancel> cancel;
  TurnObserver* observer = nullptr;    // a run's recorder: told each step
  std::optional<SpanContext> trace{};  // the span the turn's spans go under (a copy: a streamed
                                       // turn may outlive its request)
  TurnOrigin origin{};

  // The run whose end the turn's commit may write; none for a call's own turn.
  RunEndInCommit* RunEnd() const;
  const ResumedRunsTurn* Resumed() const { return std::get_if<ResumedRunsTurn>(&origin); }
  bool CallCounted() const;
  bool TookPlaceWhenQueued() const;
  const std::optional<std::string>& NewConversationId() const;
};

// What a call's admission decides (InvokeAgent::AdmitCall), the same for every way in (the plain
// call, the flow action, MCP, a background or streamed run): refused, the stored answer of the
// call that used its key first (replayed as stored), or the turn to run, its key claimed when the
// call carries one.
using Admission = std::variant<Refusal, StoredResponse, InvokeCommand>;

// The key under which a queued run's request keeps the traceparent of the request that queued it.
inline constexpr std::string_view kRunTraceKey = "_agentgate_traceparent";

// Where a background run's turn will run, decided when it is queued.
struct QueuedPlace {
  std::string conversation_id;  // "" for a stateless turn
  bool creates_conversation = false;
};

// What ended a turn before its body did, if anything.
enum class TurnStopReason { kNone, kHardCap, kCanceled, kSuperseded };

// A turn's soft deadline (answer early) and hard cap, on the Clock's steady time.
struct TurnDeadlines {
  SteadyTime soft;
  SteadyTime hard;
};

struct TurnTiming {
  std::chrono::milliseconds answer_early{100000};  // soft deadline
  std::chrono::milliseconds hard_cap{120000};      // then 504
};

struct InvokeDeps {
  StoreRunner& store;
  TenantDirectory& tenants;
  TurnCommitter& committer;
  SpendLedger& spend;
  AgentCatalog& catalog;
  ConversationQueue& conversations;
  TurnInterrupts& interrupts;  // this server's turns in a conversation's line
  ToolRunner& tools;
  McpToolbox& mcp;
  Idempotency& idempotency;
  ServerLease& server;                  // names the turn's queue tickets, and retries their release
  const ProviderPools& providers;       // each provider's key pool
  std::map<std::string, Price> prices;  // "provider/model"
  const Clock& clock;
  Metrics& metrics;
  TurnTiming timing;
  const Tracer* tracer = nullptr;  // none: tracing off
  // How long a run paused for approval waits for a decision ([runs] approval_timeout_seconds).
  std::chrono::milliseconds approval_timeout{86400000};
  // A call to a version that may pause is refused (429 queue_full) while its organization has this
  // many runs waiting, queued or paused ([runs] max_queued_per_org).
  int max_waiting_runs_per_org = 10000;
  // The events a run keeps ([runs] max_events): half may be its reply's text.delta events.
  std::size_t max_run_events = 2000;
  A2aToolbox* a2a = nullptr;  // the agents' remote A2A agents (none: they are not offered)
};

class ModelChain;
struct ModelSettings;

class InvokeAgent {
 public:
  explicit InvokeAgent(InvokeDeps deps) : d_(std::move(deps)) {}

  // Admits the caller to the agent (404, 403) and claims the call's key when it has one (409,
  // 422, or the stored answer): every way in's first step (invoke_call.cpp).
  boost::asio::awaitable<Admission> AdmitCall(const InvokeCall& call);
  // A paused run's caller again, with the agent version its run began with, when it goes on: the
  // caller must still have its chat grant.
  boost::asio::awaitable<Result<AdmittedAgent>> AdmitVersion(const Caller& caller,
                                                             const std::string& agent_id,
                                                             int version);
  // 404 unless the agent is deployed in the caller's environment, 403 without a chat grant: the
  // same check for a fresh turn and for an idempotent replay (SPEC §5).
  boost::asio::awaitable<Result<AdmittedAgent>> Admit(const Caller& caller,
                                                      const std::string& agent_id);
  // The deployed version of an agent whose A2A card anyone may read (docs/a2a.md); 404 when it
  // is not deployed there or not marked discoverable. It admits no caller: only the card reads it.
  boost::asio::awaitable<Result<std::shared_ptr<const LoadedAgent>>> Discoverable(
      const std::string& org_id, const std::string& agent_id, const std::string& env);
  // One turn under the hard cap and the caller's cancellation: its answer. A turn that does not
  // commit releases the command's Idempotency-Key, so the caller may retry. `command` must outlive
  // the call: every phase of the turn refers to it.
  boost::asio::awaitable<Result<InvokeResult>> Invoke(const InvokeCommand& command);
  // A run's admission before it starts (docs/runs.md): every check a turn makes before it runs,
  // without waiting for anything: the instance, the conversation (the caller's; for a background
  // run, `refuse_busy`, 409 with a turn running or queued on it), its call window (this call
  // counted), and 402 once a monthly limit is reached. A first call's conversation is given its id
  // now.
  boost::asio::awaitable<Result<QueuedPlace>> AdmitAhead(const InvokeCommand& command,
                                                         bool refuse_busy);
  // A background run queued with "if_busy": "interrupt": every turn ahead of its place in its
  // conversation's line is superseded (SupersedeTurnsBefore, app/turn/turn_place.hpp).
  boost::asio::awaitable<Result<void>> SupersedeAheadOf(const std::string& conversation_id,
                                                        const std::string& run_id);
  // The agents the caller's token may chat with in its environment (the MCP tool list).
  boost::asio::awaitable<Result<std::vector<AgentCatalog::ChatAgent>>> ChatAgents(
      const Caller& caller) {
    return d_.catalog.ChatAgents(caller);
  }

 private:
  // The turn's phases, in order, on its state (turn_run.hpp): its place, then the prompt, the
  // model and its tools, and the commit. An error is a failure before the commit; the commit's own
  // outcome is in the state.
  // What the turn answers once its body has ended, stopped by the hard cap or its caller or not.
  Result<InvokeResult> AnswerOf(TurnStopReason stopped, const Result<void>& body, TurnState& state);
  boost::asio::awaitable<Result<void>> RunTurn(const InvokeCommand& command,
                                               TurnDeadlines deadlines, TurnState& state);
  // What the turn carries from its prompt to its commit, made once its place is taken: 500 for a
  // model chain naming a provider this server lacks.
  Result<void> StartRun(const InvokeCommand& command, TurnDeadlines deadlines, TurnState& state);
  Span StartTurnSpan(const InvokeCommand& command) const;
  Result<ModelChain> ChainOf(const ModelSettings& model) const;
  boost::asio::awaitable<Result<void>> Prepare(TurnRun& run, std::string& instance_instructions);
  // A turn going on from a pause: the paused step's decided calls run (or are denied), and its
  // first step is the model call after them (turn_resume.cpp).
  boost::asio::awaitable<Result<void>> Restore(TurnRun& run);
  // Leaves how the turn finished in run.outcome.
  boost::asio::awaitable<Result<void>> RunModelAndTools(TurnRun& run);
  // What a step's calls wait for (approvals, answers), and the pause for them.
  void NoteNeeds(TurnRun& run, const std::vector<ToolCall>& calls);
  Turn::Step PauseForNeeds(TurnRun& run, const std::vector<ToolCall>& calls);
  // A step whose MCP servers ask the user first (docs/mcp.md): it pauses with their questions,
  // the other calls' results kept; else the step's results go to the model.
  Turn::Step AfterToolResults(TurnRun& run, const std::vector<ToolCall>& calls,
                              std::vector<ToolResult> results);
  // One model step: the call, and its retries and fallbacks until one answers or the chain says
  // stop; the turn's next step.
  boost::asio::awaitable<Result<Turn::Step>> CallModel(TurnRun& run, const ModelRequest& request);
  // What the turn answers (stop reason, safety, usage) and the record it stores.
  TurnCommit Settle(TurnRun& run, const TurnOutcome& outcome);
  // Stores the turn all or nothing; the store's outcome goes into `state.committed` as soon as it
  // has one. An error: the turn reached its commit past the hard cap, and stores nothing.
  boost::asio::awaitable<Result<void>> Commit(TurnRun& run, TurnState& state);

  InvokeDeps d_;
};

}  // namespace agentgate
