#pragma once
// An A2A task is an agentgate run (docs/a2a.md, "The mapping"): the task a run is, from the run's
// body as the runs API shows it, and a run's events as the protocol's stream responses. Pure.

#include "domain/error.hpp"
#include "domain/runs/run_events.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate::a2a {

// The reply's artifact: one per task, replaced or appended to as the reply streams.
inline constexpr std::string_view kReplyArtifactId = "reply";

// The task a run is, from its body (app/runs/run_body: run_id, status, conversation_id, result,
// error, pending_actions, timestamps): queued is SUBMITTED, running WORKING, paused
// INPUT_REQUIRED (its needs as a data part of the status message), completed COMPLETED unless its
// turn stopped short or its reply was blocked (FAILED, saying which), canceled CANCELED, failed
// FAILED with the error's message.
boost::json::object TaskOfRun(const boost::json::object& run);

// A task refused before it started (a spend limit, no grant, a full queue): REJECTED, saying
// why; stored nowhere.
boost::json::object RejectedTask(std::string_view task_id, std::string_view context_id,
                                 const Error& why, std::int64_t now_ms);

// A run's events as stream responses ({"task"}, {"statusUpdate"}, {"artifactUpdate"}), in order:
// the task first, the reply's text as appends to its artifact (a retraction replaces it), then
// the final artifact and the task's last status. The model's and tools' own events say nothing
// here.
class TaskEvents {
 public:
  TaskEvents(std::string task_id, std::string context_id)
      : task_id_(std::move(task_id)), context_id_(std::move(context_id)) {}

  void Add(const RunEvent& event, std::int64_t now_ms, std::vector<boost::json::object>& out);

 private:
  boost::json::object ArtifactUpdate(boost::json::array parts, bool append, bool last) const;
  boost::json::object StatusUpdate(boost::json::object status) const;

  std::string task_id_;
  std::string context_id_;
  bool started_ = false;
  std::string streamed_;  // the reply's text as the follower has it
};

}  // namespace agentgate::a2a
