#pragma once
// POST /api/agents/{agent_id}/invoke as a use case (SPEC §5): authenticate, find the deployed
// version, run one turn against the agent's model and tools under the soft deadline and the hard
// cap, apply the safety policy, and keep stateful history.

#include "app/agent_catalog.hpp"
#include "app/authenticate.hpp"
#include "app/conversation_queue.hpp"
#include "app/idempotency.hpp"
#include "app/spend_ledger.hpp"
#include "app/tool_runner.hpp"
#include "app/turn_cancel.hpp"
#include "app/turn_committer.hpp"
#include "config/config.hpp"
#include "domain/agent/invoke_request.hpp"
#include "observability/metrics.hpp"
#include "ports/model_client.hpp"

#include <chrono>
#include <functional>
#include <map>

namespace agentgate {

struct TurnOutcome;

struct InvokeResult {
  std::string response;
  std::optional<std::string> conversation_id;
  std::optional<StopReason> stop_reason;
  bool blocked = false;
  TokenUsage usage;
  double cost_usd = 0;
  int model_calls = 0;
  std::string turn_id;  // GET /admin/v1/orgs/{org}/turns/{id} shows its transcript
};

// The Idempotency-Key a call runs under: the turn's commit completes the claim with the answer
// `answer` renders (the route's own 200 body), in the same transaction.
struct IdempotentCall {
  ClaimedKey key;
  std::function<StoredResponse(const InvokeResult&)> answer;
};

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

// Refers to the route's own caller, agent id and request, which outlive the turn (the route awaits
// it): no copy of them is kept for the turn's whole life.
struct InvokeCommand {
  const Caller& caller;  // authenticated by the caller of Invoke
  const std::string& agent_id;
  AdmittedAgent agent;
  const InvokeRequest& request;
  std::optional<IdempotentCall> idempotency;
  std::shared_ptr<TurnCancel> cancel;  // set when the caller may end the turn early
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
  ToolRunner& tools;
  McpToolbox& mcp;
  std::map<std::string, ModelClient*> models;  // by provider name
  std::map<std::string, Price> prices;         // "provider/model"
  const Clock& clock;
  Metrics& metrics;
  TurnTiming timing;
};

class InvokeAgent {
 public:
  explicit InvokeAgent(InvokeDeps deps) : d_(std::move(deps)) {}

  // 404 unless the agent is deployed in the caller's environment, 403 without a chat grant: the
  // same check for a fresh turn and for an idempotent replay (SPEC §5).
  boost::asio::awaitable<Result<AdmittedAgent>> Admit(const Caller& caller,
                                                      const std::string& agent_id);
  // `command` must outlive the call (the caller awaits it): every coroutine of the turn refers to
  // it instead of holding a copy of its own for the turn's whole life.
  boost::asio::awaitable<Result<InvokeResult>> Invoke(const InvokeCommand& command);
  // The agents the caller's token may chat with in its environment (the MCP tool list).
  boost::asio::awaitable<Result<std::vector<AgentCatalog::ChatAgent>>> ChatAgents(
      const Caller& caller) {
    return d_.catalog.ChatAgents(caller);
  }

 private:
  struct Deadlines {
    std::chrono::steady_clock::time_point soft;
    std::chrono::steady_clock::time_point hard;
  };

  // Set by the turn as soon as its commit has an outcome: what the caller gets, even when the hard
  // cap passed while the commit ran (a committed turn is never answered 504).
  using CommitOutcome = std::optional<Result<InvokeResult>>;

  boost::asio::awaitable<Result<InvokeResult>> Body(const InvokeCommand& command,
                                                    Deadlines deadlines, CommitOutcome& outcome);
  // The arguments are Body's locals, which outlive the call (Body awaits it); RunTurn moves the
  // instructions and the new conversation into what it builds.
  boost::asio::awaitable<Result<InvokeResult>> RunTurn(
      const InvokeCommand& command, const std::shared_ptr<const LoadedAgent>& agent,
      std::string& instance_instructions, const std::optional<std::string>& conversation_id,
      std::optional<ConversationRecord>& new_conversation, Deadlines deadlines,
      CommitOutcome& commit_outcome);
  // RunTurn's phases before its first model call and after its last (see TurnRun).
  struct TurnRun;
  boost::asio::awaitable<Result<void>> PrepareTurn(TurnRun& run,
                                                   std::string& instance_instructions);
  boost::asio::awaitable<Result<InvokeResult>> CommitTurn(TurnRun& run, const TurnOutcome& outcome,
                                                          CommitOutcome& commit_outcome);

  InvokeDeps d_;
};

}  // namespace agentgate
