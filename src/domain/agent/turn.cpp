#include "domain/agent/turn.hpp"

#include "domain/json_fields.hpp"
#include "domain/json_text.hpp"
#include "domain/schema/json_schema.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>

namespace agentgate {
namespace {

boost::json::value ParseArguments(const std::string& json) {
  boost::system::error_code ec;
  auto v = boost::json::parse(json.empty() ? "{}" : json, ec);
  if (ec) return boost::json::value(json);  // keep what the model sent, as a string
  return v;
}

}  // namespace

std::string_view StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kMaxIterations:
      return "max_iterations";
    case StopReason::kLoopDetected:
      return "loop_detected";
    case StopReason::kLlmError:
      return "llm_error";
    case StopReason::kProviderError:
      return "provider_error";
    case StopReason::kTurnTimeout:
      return "turn_timeout";
    case StopReason::kSpendLimitReached:
      return "spend_limit_reached";
    case StopReason::kApprovalRequired:
      return "approval_required";
    case StopReason::kInputRequired:
      return "input_required";
    case StopReason::kInvalidOutput:
      return "invalid_output";
  }
  return "llm_error";
}

Turn::Turn(ModelRequest request, std::set<std::string> action_names, int max_iterations)
    : request_(std::move(request)),
      action_names_(std::move(action_names)),
      max_iterations_(max_iterations) {}

Turn::Turn(ModelRequest request, std::set<std::string> action_names, int max_iterations,
           TurnProgress progress)
    : request_(std::move(request)),
      action_names_(std::move(action_names)),
      max_iterations_(max_iterations),
      state_(State::kAwaitingTools),
      model_calls_(progress.model_calls),
      reply_text_(std::move(progress.reply_text)),
      actions_(std::move(progress.actions)),
      call_counts_(std::move(progress.call_counts)),
      pending_(std::move(progress.pending)),
      repaired_(progress.repaired) {}

TurnProgress Turn::Progress() const {
  return TurnProgress{model_calls_, reply_text_, actions_, call_counts_, pending_, repaired_};
}

Turn::Step Turn::Start() {
  state_ = State::kAwaitingModel;
  model_calls_ = 1;
  return CallModel{&request_};
}

Turn::Step Turn::Finished(std::optional<StopReason> reason, std::string failure) {
  state_ = State::kFinished;
  return Finish{TurnOutcome{reply_text_, actions_, reason, std::move(failure)}};
}

Turn::Step Turn::OnModelReply(const ModelReply& reply) {
  request_.required_tool.reset();  // asked of the first call only
  if (!reply.text.empty()) reply_text_ = reply.text;
  ChatMessage assistant;
  assistant.role = Role::kAssistant;
  assistant.content = reply.text;
  assistant.tool_calls = reply.tool_calls;
  request_.messages.push_back(assistant);
  if (reply.tool_calls.empty()) {
    if (request_.answer_format) return Answered(reply.text);
    return Finished(std::nullopt);
  }
  std::vector<ToolCall> for_the_caller;
  for (const auto& call : reply.tool_calls)
    if (caller_tools_.contains(call.name)) for_the_caller.push_back(call);
  if (!for_the_caller.empty()) {
    // The caller runs them and comes back with their results in a call of its own: the step is
    // the caller's, so the agent's calls in it do not run (the model may make them again).
    request_.messages.back().tool_calls = for_the_caller;
    state_ = State::kFinished;
    TurnOutcome outcome{reply.text, actions_, std::nullopt, ""};
    outcome.caller_calls = std::move(for_the_caller);
    return Finish{std::move(outcome)};
  }

  for (const auto& call : reply.tool_calls) {
    const std::string key =
        call.name + "\n" + json_text::WriteCanonical(ParseArguments(call.arguments_json));
    if (++call_counts_[key] >= 3) return Finished(StopReason::kLoopDetected);
  }
  pending_ = reply.tool_calls;
  std::vector<ToolCall> to_run;
  for (const auto& call : reply.tool_calls) {
    if (action_names_.contains(call.name)) {
      actions_.push_back(RecordedAction{call.name, ParseArguments(call.arguments_json)});
    } else {
      to_run.push_back(call);
    }
  }
  if (model_calls_ >= max_iterations_) return Finished(StopReason::kMaxIterations);
  if (!to_run.empty()) {
    state_ = State::kAwaitingTools;
    return RunTools{std::move(to_run)};
  }
  return OnToolResults({});
}

Turn::Step Turn::OnToolResults(const std::vector<ToolResult>& results) {
  // Answer every call of the last reply in its order: actions with the acknowledgement.
  for (const auto& call : pending_) {
    ChatMessage message;
    message.role = Role::kTool;
    message.tool_call_id = call.id;
    message.tool_name = call.name;
    if (action_names_.contains(call.name)) {
      message.content = kActionAcknowledgement;
    } else {
      auto it = std::find_if(results.begin(), results.end(),
                             [&](const ToolResult& r) { return r.call_id == call.id; });
      message.content = it != results.end() ? it->content : "error: the tool produced no result";
    }
    request_.messages.push_back(std::move(message));
  }
  pending_.clear();
  ++model_calls_;
  state_ = State::kAwaitingModel;
  return CallModel{&request_};
}

// The repair call does not count toward max_iterations (docs/structured-output.md): it is one
// call at most, and an agent allowed a single call could otherwise never be repaired.
Turn::Step Turn::Answered(const std::string& text) {
  std::vector<std::string> problems;
  boost::system::error_code ec;
  auto answer = boost::json::parse(text, ec);
  if (ec) {
    problems.push_back("$: the answer is not a JSON value (" + ec.message() + ")");
  } else {
    for (const auto& v : schema::Validate(request_.answer_format->schema, answer))
      problems.push_back(v.path + ": " + v.message);
  }
  if (problems.empty()) {
    auto finish = Finished(std::nullopt);
    std::get<Finish>(finish).outcome.output = std::move(answer);
    return finish;
  }
  if (repaired_) return Finished(StopReason::kInvalidOutput);
  repaired_ = true;
  ChatMessage repair;
  repair.role = Role::kUser;
  repair.content = RepairRequest(problems);
  request_.messages.push_back(std::move(repair));
  ++model_calls_;
  state_ = State::kAwaitingModel;
  return CallModel{&request_};
}

std::string Turn::RepairRequest(const std::vector<std::string>& problems) {
  std::string text = "Your answer does not match the required JSON Schema:\n";
  for (const auto& problem : problems) text += "- " + problem + "\n";
  text += "Answer again with only the corrected JSON object, and no other text.";
  return text;
}

Turn::Step Turn::OnModelFailed(StopReason reason, const std::string& failure) {
  return Finished(reason, failure);
}
Turn::Step Turn::OnSoftDeadline() {
  return Finished(StopReason::kTurnTimeout);
}
Turn::Step Turn::OnSpendExhausted() {
  return Finished(StopReason::kSpendLimitReached);
}
Turn::Step Turn::OnApprovalNeeded(bool asks_user) {
  // Not Finished: its progress (the pending calls above all) is kept for the turn that goes on.
  state_ = State::kFinished;
  const StopReason reason = asks_user ? StopReason::kInputRequired : StopReason::kApprovalRequired;
  return Finish{TurnOutcome{reply_text_, actions_, reason, ""}};
}

Turn::Step Turn::OnApprovalWithheld() {
  state_ = State::kFinished;
  TurnOutcome outcome{reply_text_, actions_, std::nullopt, ""};
  outcome.approval_withheld = true;
  return Finish{std::move(outcome)};
}

std::string RenderResponse(const TurnOutcome& outcome) {
  std::string out = outcome.reply_text;
  for (const auto& action : outcome.actions) {
    if (!out.empty()) out += "\n\n";
    boost::json::object block;
    block["name"] = action.name;
    block["arguments"] = action.arguments;
    out += ":::action\n" + json_text::Write(block) + "\n:::";
  }
  return out;
}

}  // namespace agentgate
