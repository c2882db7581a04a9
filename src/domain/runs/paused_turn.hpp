#pragma once
// A turn paused for a person's approval of its tool calls (docs/daemon.md, Tool approvals): what
// the run keeps to go on where it stopped, written as JSON in the run's store row, and the
// decisions a person sends. Pure.

#include "domain/agent/turn.hpp"
#include "domain/error.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentgate {

struct PausedTurn {
  ModelRequest request;  // as its next model call will send it: every message so far
  TurnProgress progress;
  std::vector<ToolCall> to_run;             // the paused step's calls, run once decided
  std::vector<std::string> needs_approval;  // which of them wait for a decision (call ids)
  std::vector<std::string> needs_answer;    // which are questions (ask_user, or an MCP server's)
  // A step paused after it ran, for its MCP servers' questions (docs/mcp.md): what those servers
  // asked, by call id, and the results of its calls that answered, kept for the model.
  std::map<std::string, ToolAsk> asks;
  std::vector<ToolResult> ran;
  // The /v1 caller's own functions among the request's tools: not offered once the run goes on,
  // for that caller is no longer in the loop (docs/openai.md, "The caller's tools").
  std::vector<std::string> caller_tools;
  std::string recorded_system;  // the system text as the transcript keeps it
  std::size_t history_sent = 0;
  // What the run has cost so far, every part of it: its answer's usage adds them up.
  TokenUsage usage;
  double cost_usd = 0;
  int model_calls = 0;
  std::vector<ModelUsage> models;
  boost::json::value invoke;  // the caller's request (InvokeRequestJson), conversation id included
  int agent_version = 0;      // the run goes on with the agent version it began with
};

std::string PausedTurnJson(const PausedTurn& paused);
Result<PausedTurn> ParsePausedTurn(std::string_view json);

// What the run waits for, as callers see it: [{call_id, kind, tool, arguments}], the arguments as
// the model wrote them (parsed when they are JSON); kind "approval", or "question" with the
// `question` and its `answer_schema` (null when any answer goes).
boost::json::array PendingActionsJson(const PausedTurn& paused);

struct ApprovalDecision {
  std::string call_id;
  bool approve = false;
  std::string reason;  // optional; a denial's reaches the model
  // An approval with the arguments edited (a JSON object's text): the tool runs with these.
  std::optional<std::string> arguments = {};
  // An answer to the model's question (`answers[at]`), as the model reads it: the call's result.
  std::optional<std::string> answer = {};
  std::size_t at = 0;     // its place in `decisions` or `answers`, for a 400
  bool declined = false;  // an answer the user would not give (`answer` tells the model so)
};

// POST /api/runs/{run_id}/approvals: {"decisions": [{call_id, approve, reason?, arguments?}],
// "answers": [{call_id, answer}], "background"?}, its shape checked with 400s naming the field.
// Answers are kept among the decisions (an approval whose result is the answer); the raw answers
// wait in `answered` until the run's questions are read (CheckAnswers).
struct ApprovalRequest {
  std::vector<ApprovalDecision> decisions;
  bool background = false;
  std::vector<std::pair<std::string, boost::json::value>> answered = {};  // call_id, answer
  // Questions the user would not answer (an MCP client's declined form): call_id, what the model
  // is told instead of an answer.
  std::vector<std::pair<std::string, std::string>> declined = {};
  bool Approves() const;  // decides a call (needs `approve`), not only answers
};
Result<ApprovalRequest> ParseApprovalRequest(const boost::json::value& body);
// Once the run is read: every pending call is decided, once, and only pending calls are; edited
// arguments keep to their tool's parameters (the tool's name never changes).
Result<void> CheckDecisions(const ApprovalRequest& request,
                            const std::vector<std::string>& pending);
Result<void> CheckEditedArguments(const ApprovalRequest& request, const PausedTurn& paused);
// Every question answered (or declined), once, within its answer_schema: the answers join the
// decisions.
Result<void> CheckAnswers(ApprovalRequest& request, const PausedTurn& paused);

// What an approved call with edited arguments tells the model with its result.
std::string EditedResult(const std::string& arguments, const std::string& result);

// A paused run decided to go on in the background waits in the queue, as any run waits for a
// server with room (docs/runs.md): what it needs then is kept as its queued request, the decisions
// and the number of its last event so far (its pause's).
struct DecidedRun {
  std::vector<ApprovalDecision> decisions;
  std::int64_t after_seq = 0;
};
std::string DecidedRunJson(const DecidedRun& decided);
Result<DecidedRun> ParseDecidedRun(std::string_view json);

// What a denied call's result tells the model.
std::string DeniedResult(const ApprovalDecision& decision);

}  // namespace agentgate
