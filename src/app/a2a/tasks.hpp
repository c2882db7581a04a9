#pragma once
// An agent's A2A tasks as runs (docs/a2a.md): a message sent, waited for to its end or pause or
// queued as a background run; a task read and canceled. Each answer is the task as A2A shows it
// (domain/a2a/task); a call refused before it started is a REJECTED task stored nowhere.

#include "app/a2a/push_configs.hpp"
#include "app/runs/runs.hpp"
#include "domain/a2a/list_tasks.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>

namespace agentgate::a2a {

// The renderer a message's Idempotency-Key stores: the run that answers it, whose task a resent
// message is answered with.
AnswerRenderer TaskAnswer();

// A push config sent with a message (configuration.taskPushNotificationConfig): saved for its
// task as soon as the task is there, before it is waited for.
struct InlinePush {
  TaskPushConfigs& configs;
  PushConfigAsked asked;
  bool legacy = false;
};
boost::asio::awaitable<Result<void>> SaveInlinePush(const InlinePush* push, const RunRecord& task);

// Sends the call's message: `immediately`, its run is queued and the task answered SUBMITTED;
// else the run starts here and the task is answered at its end or pause. A message sent again
// (its key's stored answer) is answered with its task as it stands now.
boost::asio::awaitable<Result<boost::json::object>> SendMessage(Runs& runs, const InvokeCall& call,
                                                                bool immediately,
                                                                std::int64_t now_ms,
                                                                const InlinePush* push = nullptr);

// The task a message sent before is answered with: its key's stored answer names its run.
boost::asio::awaitable<Result<boost::json::object>> ReplayedTask(Runs& runs, const InvokeCall& call,
                                                                 const StoredResponse& stored,
                                                                 const InlinePush* push = nullptr);

// The task, if it is a task of the caller's on this agent (TaskNotFound otherwise).
boost::asio::awaitable<Result<boost::json::object>> GetTask(Runs& runs, const Caller& caller,
                                                            const std::string& agent_id,
                                                            const std::string& task_id);
boost::asio::awaitable<Result<boost::json::object>> CancelTask(Runs& runs, const Caller& caller,
                                                               const std::string& agent_id,
                                                               const std::string& task_id);

// A page of the agent's tasks in the caller's environment (its runs, however they were started,
// as the runs API shows them to any caller with chat on the agent), the latest change first:
// {tasks, nextPageToken ("" on the last page), pageSize, totalSize}.
boost::asio::awaitable<Result<boost::json::object>> ListTasks(StoreRunner& store,
                                                              const Caller& caller,
                                                              const std::string& agent_id,
                                                              const TasksAsked& asked);

// The run behind a task of this agent's that the caller may follow (its events), or why not.
boost::asio::awaitable<Result<RunRecord>> TaskRun(Runs& runs, const Caller& caller,
                                                  const std::string& agent_id,
                                                  const std::string& task_id);

// Refusals before a task starts that A2A answers as a REJECTED task, not as an error.
bool RejectsTask(const Error& error);

}  // namespace agentgate::a2a
