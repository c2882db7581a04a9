#pragma once
// One agent turn as a state machine: given what happened (a model reply, tool results, a failed
// call, the soft deadline), it says what to do next. No I/O and no clock: the driver in app/
// performs each step and feeds the outcome back.

#include "domain/agent/model_types.hpp"
#include "domain/agent/stop_reason.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace agentgate {

struct RecordedAction {
  std::string name;
  boost::json::value arguments;
};

// A tool's server asked for the user's input before it answers (an MCP server's input_required
// result, docs/mcp.md): the call waits as a question of the run, and the answer goes back to that
// server with its request state, exactly as it was given.
struct ToolAsk {
  std::string input_key;      // the server's name for its one request
  std::string request_state;  // echoed byte for byte
  std::string question;
  boost::json::value answer_schema;  // the form's schema
  bool operator==(const ToolAsk&) const = default;
};

struct ToolResult {
  std::string call_id;
  std::string name;
  std::string content;  // what the model reads; "error: ..." when the tool could not answer
  std::optional<ToolAsk> ask = std::nullopt;  // no answer yet: the server asks the user first
};

// Whether a tool could not answer (bad arguments, no such tool, its host unreachable): every tool
// says so to the model the same way.
inline bool ToolFailed(const ToolResult& result) {
  return std::string_view(result.content).starts_with("error: ");
}

struct TurnOutcome {
  std::string reply_text;
  std::vector<RecordedAction> actions;  // in call order
  std::optional<StopReason> stop_reason;
  std::string failure;  // for llm_error / provider_error: what failed
  // The safety policy blocks the arguments of a call that needed approval: the turn ends blocked
  // instead of offering them to a person (docs/daemon.md "Safety").
  bool approval_withheld = false;
  // The final answer parsed, when the turn's request has an answer schema and it kept to it.
  std::optional<boost::json::value> output = {};
  // The model called the caller's own functions (a /v1 caller's tools): the turn ends with these
  // calls for the caller to run; the same step's calls of the agent's tools did not run.
  std::vector<ToolCall> caller_calls = {};
};

// What a turn has done besides its messages, kept while it waits for a person's approval
// (docs/daemon.md, Tool approvals) and given back to go on where it paused.
struct TurnProgress {
  int model_calls = 0;
  std::string reply_text;
  std::vector<RecordedAction> actions;
  std::map<std::string, int> call_counts;  // name + canonical arguments -> times called
  std::vector<ToolCall> pending;           // the last reply's calls, actions included
  bool repaired = false;                   // the one repair call for a bad answer was made
};

class Turn {
 public:
  enum class State { kNotStarted, kAwaitingModel, kAwaitingTools, kFinished };

  // The turn's own request, not a copy of the prompt per step: valid while the turn lives and
  // until its next step.
  struct CallModel {
    const ModelRequest* request;
  };
  struct RunTools {
    std::vector<ToolCall> calls;  // tools to execute (actions are already recorded)
  };
  struct Finish {
    TurnOutcome outcome;
  };
  using Step = std::variant<CallModel, RunTools, Finish>;

  // `request` holds the assembled prompt and tools; `action_names` are the tools that are actions.
  Turn(ModelRequest request, std::set<std::string> action_names, int max_iterations);
  // A paused turn again, awaiting the results of its last reply's calls (OnToolResults):
  // `request` with its messages as they were when it paused.
  Turn(ModelRequest request, std::set<std::string> action_names, int max_iterations,
       TurnProgress progress);

  // The tools (among the request's) that are the caller's own: a reply calling any of them ends
  // the turn with those calls.
  void SetCallerTools(std::set<std::string> names) { caller_tools_ = std::move(names); }

  Step Start();
  Step OnModelReply(const ModelReply& reply);
  Step OnModelFailed(StopReason reason, const std::string& failure);
  Step OnToolResults(const std::vector<ToolResult>& results);
  // The soft deadline passed before the next step: answer with what the turn has.
  Step OnSoftDeadline();
  // Spend ran out before the next model call.
  Step OnSpendExhausted();
  // Some of the calls RunTools asked for need a person's approval: the turn pauses before any of
  // them runs (its progress is what it goes on from).
  // `asks_user`: among them is the model's question to the user (input_required).
  Step OnApprovalNeeded(bool asks_user = false);
  // Some of those calls' arguments are what the safety policy blocks: the turn ends, blocked,
  // with nothing offered for approval and none of the step's calls run.
  Step OnApprovalWithheld();

  State state() const { return state_; }
  int model_calls() const { return model_calls_; }
  const std::vector<ChatMessage>& transcript() const { return request_.messages; }
  const ModelRequest& request() const { return request_; }
  TurnProgress Progress() const;

  // Asks the model again for an answer that broke its schema (at most once per turn).
  static std::string RepairRequest(const std::vector<std::string>& problems);

  // What the caller is told when the model calls an action.
  static constexpr const char* kActionAcknowledgement =
      "Recorded. The caller will perform this action after your reply; continue as if it will "
      "happen.";

 private:
  Step Finished(std::optional<StopReason> reason, std::string failure = "");
  // A final answer under an answer schema: finished if it keeps to it, else repaired once.
  Step Answered(const std::string& text);

  ModelRequest request_;
  std::set<std::string> action_names_;
  std::set<std::string> caller_tools_;
  int max_iterations_;
  State state_ = State::kNotStarted;
  int model_calls_ = 0;
  std::string reply_text_;
  std::vector<RecordedAction> actions_;
  std::map<std::string, int> call_counts_;  // name + canonical arguments -> times called
  std::vector<ToolCall> pending_;           // the calls of the last reply, awaiting results
  bool repaired_ = false;
};

// The final response text: the reply followed by one `:::action` block per action.
std::string RenderResponse(const TurnOutcome& outcome);

}  // namespace agentgate
