#pragma once
// A run's events (docs/runs.md): what each says, and how it goes on the wire as Server-Sent
// Events. Pure: the run's recorder numbers and stores them, the routes send them.

#include "domain/error.hpp"

#include <boost/json/fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate {

// requires_action: paused for a person's decision on its tool calls (docs/daemon.md).
enum class RunStatus { kQueued, kRunning, kCompleted, kFailed, kCanceled, kRequiresAction };

std::string_view RunStatusName(RunStatus status);
std::optional<RunStatus> ParseRunStatus(std::string_view name);
inline bool HasEnded(RunStatus status) {
  return status == RunStatus::kCompleted || status == RunStatus::kFailed ||
         status == RunStatus::kCanceled;
}

struct RunEvent {
  std::int64_t seq = 0;  // from 1 in each run
  std::string type;      // "run.started", ...
  std::string data;      // one line of compact JSON
};

namespace run_events {

RunEvent Started(std::string_view run_id, std::string_view conversation_id,
                 std::string_view agent_id);
RunEvent ModelStarted(int call, std::string_view provider, std::string_view model);
RunEvent ModelFinished(int call, std::int64_t input_tokens, std::int64_t output_tokens,
                       double cost_usd);
RunEvent ModelFailed(int call, std::string_view failure);
RunEvent ToolStarted(std::string_view call_id, std::string_view name);
RunEvent ToolFinished(std::string_view call_id, std::string_view name, bool ok, std::int64_t ms);
// A remote agent's task goes on (docs/a2a.md, "Remote agents as tools"): its state and how many
// characters of its reply have come, never their text (nothing unchecked is shown).
RunEvent ToolProgress(std::string_view call_id, std::string_view name, std::string_view state,
                      std::int64_t chars);
// `call`: the model call that wrote it (none for a reply sent whole after its verdict).
RunEvent TextDelta(std::string_view text, std::optional<int> call = std::nullopt);
RunEvent Action(std::string_view name, const boost::json::value& arguments);
// Text sent so far is withdrawn: one failed call's (`call`), or all of it (the reply is withheld).
RunEvent TextRetracted(std::optional<int> call);
// The terminal events: the plain call's 200 body, or its error ({status, code, message}).
RunEvent Completed(std::string body_json);
RunEvent Failed(const Error& error);
// The run paused for a person's decision: the plain call's 200 body, its run_id and
// pending_actions in it. It ends a follower's stream as a terminal event does; the run's later
// events follow it once it is decided (docs/daemon.md, Tool approvals).
RunEvent RequiresAction(std::string body_json);

// What ends a follower's stream: the run's end, or its pause.
inline bool IsTerminal(std::string_view type) {
  return type == "run.completed" || type == "run.failed" || type == "run.requires_action";
}
// The run's own last event: it ended, and nothing follows.
inline bool IsEnd(std::string_view type) {
  return type == "run.completed" || type == "run.failed";
}

}  // namespace run_events

// The event as "id: <seq>\nevent: <type>\ndata: <data>\n\n", appended to `out` (a follower
// sends several at once).
void AppendSseFrame(std::string& out, const RunEvent& event);
// A comment line that keeps proxies from closing a quiet stream.
inline constexpr std::string_view kSseKeepAlive = ": keep-alive\n\n";

// The Last-Event-ID a client resumes from: a non-negative event number (none: from the start).
Result<std::int64_t> ParseLastEventId(std::string_view text);

}  // namespace agentgate
