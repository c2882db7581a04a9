#include "app/a2a/tasks.hpp"

#include "app/runs/run_body.hpp"
#include "crypto/crypto.hpp"
#include "domain/a2a/task.hpp"
#include "domain/json_text.hpp"
#include "domain/resource_ids.hpp"

#include <boost/json/parse.hpp>

#include <chrono>

namespace agentgate::a2a {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// How long one look at a waited-for run lasts; the wait goes on until the run ends or pauses.
constexpr std::chrono::seconds kLookFor{30};

Error NoSuchTask(const std::string& task_id) {
  return Error(ErrorCode::kRunNotFound, "no task '" + task_id + "' of this agent");
}

// The run a key's stored answer names.
std::string RunOfStoredAnswer(const StoredResponse& stored) {
  boost::system::error_code ec;
  const json::value body = json::parse(stored.body, ec);
  const auto* run_id = !ec && body.is_object() ? body.get_object().if_contains("run_id") : nullptr;
  return run_id != nullptr && run_id->is_string() ? std::string(run_id->get_string()) : "";
}

}  // namespace

AnswerRenderer TaskAnswer() {
  return [](const InvokeResult& result) {
    const std::string run_id =
        result.run_id.empty() ? ids::RunOfTurn(result.turn_id) : result.run_id;
    json_text::ObjectWriter body;
    body.String("run_id", run_id);
    return StoredResponse{200, body.Finish()};
  };
}

bool RejectsTask(const Error& error) {
  return error.code == ErrorCode::kSpendLimitReached || error.code == ErrorCode::kForbidden ||
         error.code == ErrorCode::kQueueFull || error.code == ErrorCode::kRateLimited;
}

asio::awaitable<Result<RunRecord>> TaskRun(Runs& runs, const Caller& caller,
                                           const std::string& agent_id,
                                           const std::string& task_id) {
  auto run = co_await runs.Get(caller, task_id);
  // Another's task, or one of an agent this caller may not use, is not there for it.
  if (!run && !IsServiceFailure(run.error())) co_return NoSuchTask(task_id);
  if (!run) co_return run.error();
  if (run->agent_id != agent_id) co_return NoSuchTask(task_id);
  co_return std::move(*run);
}

asio::awaitable<Result<json::object>> GetTask(Runs& runs, const Caller& caller,
                                              const std::string& agent_id,
                                              const std::string& task_id) {
  AG_CO_TRY(const RunRecord run, co_await TaskRun(runs, caller, agent_id, task_id));
  co_return TaskOfRun(RunBody(run));
}

asio::awaitable<Result<json::object>> ListTasks(StoreRunner& store, const Caller& caller,
                                                const std::string& agent_id,
                                                const TasksAsked& asked) {
  json::array tasks;
  std::string next;
  std::int64_t total = 0;
  if (!asked.none) {
    AgentRunsQuery query{caller.org_id,          caller.env,     agent_id,
                         asked.context_id,       asked.outcomes, asked.changed_after_ms,
                         asked.after_changed_ms, asked.after_id, asked.page_size + 1};
    AG_CO_TRY(auto runs, co_await store.Run([&](Store& s) { return s.ListAgentRuns(query); }));
    AG_CO_TRY(total, co_await store.Run([&](Store& s) { return s.CountAgentRuns(query); }));
    // One more than the page was read: whether a next page starts after it.
    if (runs.size() > static_cast<std::size_t>(asked.page_size)) {
      runs.resize(static_cast<std::size_t>(asked.page_size));
      const RunRecord& last = runs.back();
      const std::int64_t changed = last.ended_at_ms > 0     ? last.ended_at_ms
                                   : last.started_at_ms > 0 ? last.started_at_ms
                                                            : last.created_at_ms;
      next = PageToken(changed, last.id);
    }
    for (const auto& run : runs) {
      json::object task = TaskOfRun(RunBody(run));
      if (!asked.include_artifacts) task.erase("artifacts");
      tasks.push_back(std::move(task));
    }
  }
  co_return json::object{{"tasks", std::move(tasks)},
                         {"nextPageToken", next},
                         {"pageSize", asked.page_size},
                         {"totalSize", total}};
}

asio::awaitable<Result<json::object>> CancelTask(Runs& runs, const Caller& caller,
                                                 const std::string& agent_id,
                                                 const std::string& task_id) {
  AG_CO_TRY(const RunRecord found, co_await TaskRun(runs, caller, agent_id, task_id));
  AG_CO_TRY(const RunRecord canceled, co_await runs.Cancel(caller, found.id));
  co_return TaskOfRun(RunBody(canceled));
}

asio::awaitable<Result<void>> SaveInlinePush(const InlinePush* push, const RunRecord& task) {
  if (push == nullptr) co_return Result<void>{};
  AG_CO_TRYV(co_await push->configs.Save(task, push->asked, push->legacy));
  co_return Result<void>{};
}

asio::awaitable<Result<json::object>> ReplayedTask(Runs& runs, const InvokeCall& call,
                                                   const StoredResponse& stored,
                                                   const InlinePush* push) {
  const std::string run_id = RunOfStoredAnswer(stored);
  if (run_id.empty()) {
    co_return Error(ErrorCode::kIdempotencyKeyReused,
                    "field 'message.messageId': was sent before in another kind of call");
  }
  AG_CO_TRY(const RunRecord run, co_await TaskRun(runs, call.caller, call.agent_id, run_id));
  // Sent again with its config: the config is saved again (the same id replaces it).
  AG_CO_TRYV(co_await SaveInlinePush(push, run));
  co_return TaskOfRun(RunBody(run));
}

asio::awaitable<Result<json::object>> SendMessage(Runs& runs, const InvokeCall& call,
                                                  bool immediately, std::int64_t now_ms,
                                                  const InlinePush* push) {
  StreamAnswer begun;
  if (immediately) {
    begun.answer = co_await runs.Queue(call, /*notify=*/false);
  } else {
    begun = co_await runs.Stream(call, /*notify=*/false, /*hand_over=*/false);
  }
  if (const auto* replay = std::get_if<StoredResponse>(&begun.answer))
    co_return co_await ReplayedTask(runs, call, *replay, push);
  const auto& run = std::get<Result<RunRecord>>(begun.answer);
  if (!run) {
    if (!RejectsTask(run.error())) co_return run.error();
    const std::string id = ids::Make(ids::kRun, crypto::RandomHex(16));
    co_return RejectedTask(id, call.request.conversation_id.value_or(""), run.error(), now_ms);
  }
  AG_CO_TRYV(co_await SaveInlinePush(push, *run));
  if (immediately) co_return TaskOfRun(RunBody(*run));
  // Waited for to its end or pause; the run is read then, as GetTask reads it.
  RunCursor cursor{run->id, 0, nullptr, nullptr};
  const RunEventSink ignore = [](const RunEvent&) {};
  for (;;) {
    AG_CO_TRY(const RunEventsRead read,
              co_await runs.NextEvents(cursor, kLookFor, ignore, /*until_end=*/true));
    if (read.ended) break;
  }
  co_return co_await GetTask(runs, call.caller, call.agent_id, run->id);
}

}  // namespace agentgate::a2a
