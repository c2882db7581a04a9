// The operations of an agent's A2A interface (docs/a2a.md): a task sent, streamed, answered, read,
// listed, canceled and subscribed to, as runs, for either binding to render.
#include "adapters/http_server/handlers/a2a_operations.hpp"

#include "adapters/http_server/handlers/run_stream.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/a2a/push_configs.hpp"
#include "app/a2a/tasks.hpp"
#include "app/runs/run_body.hpp"
#include "app/turn/idempotency.hpp"
#include "crypto/crypto.hpp"
#include "domain/a2a/legacy.hpp"
#include "domain/a2a/send_message.hpp"
#include "domain/a2a/task.hpp"
#include "domain/a2a/task_answer.hpp"
#include "domain/json_text.hpp"
#include "domain/resource_ids.hpp"

#include <boost/asio/this_coro.hpp>
#include <boost/json/object.hpp>

#include <chrono>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;
using a2a::Fault;
using a2a::ProtocolError;

namespace {

std::int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A run's events as A2A stream responses, each one SSE `data:` line: bare (HTTP+JSON) or as a
// JSON-RPC response to the request that opened the stream.
class TaskStreamFrames final : public StreamFormat {
 public:
  TaskStreamFrames(std::string task_id, std::string context_id, const A2aInterface& at)
      : events_(std::move(task_id), std::move(context_id)),
        rpc_id_(at.rpc_id),
        legacy_(at.legacy) {}

  void Frame(std::string& out, const RunEvent& event) override {
    frames_.clear();
    events_.Add(event, NowMs(), frames_);
    for (auto& frame : frames_) {
      out.append("data: ");
      if (rpc_id_) {
        json::value result =
            legacy_ ? a2a::legacy::LegacyResult(frame) : json::value(std::move(frame));
        out.append(json_text::Write(a2a::JsonRpcResultBody(*rpc_id_, std::move(result))));
      } else {
        out.append(json_text::Write(frame));
      }
      out.append("\n\n");
    }
  }
  // The stream ends before the task does (the caller's right to follow it went): the task goes
  // on, read with GetTask or SubscribeToTask.
  void Stopped(std::string& out, const StreamTicket& ticket) override {
    out.append(": stream ended: ").append(ticket.reason()).append("\n\n");
  }

 private:
  a2a::TaskEvents events_;
  std::optional<json::value> rpc_id_;
  bool legacy_ = false;
  std::vector<json::object> frames_;
};

// The task's id in a request's params (GetTask, CancelTask, SubscribeToTask: `id`).
std::variant<std::string, ProtocolError> TaskIdOf(const json::value& params) {
  const auto* id = params.is_object() ? params.get_object().if_contains("id") : nullptr;
  if (id == nullptr || !id->is_string() || id->get_string().empty())
    return ProtocolError{Fault::kInvalidParams, "field 'id': must be the task's id", "id"};
  return std::string(id->get_string());
}

// GetTask and CancelTask: `use` on the task the params' `id` names.
using TaskUse = asio::awaitable<Result<json::object>> (*)(Runs&, const Caller&,
                                                          const std::string& agent_id,
                                                          const std::string& task_id);
asio::awaitable<A2aAnswer> OnTask(RouteDeps& deps, const A2aInterface& at,
                                  const json::value& params, TaskUse use) {
  auto id = TaskIdOf(params);
  if (auto* refused = std::get_if<ProtocolError>(&id)) co_return std::move(*refused);
  auto task = co_await use(deps.runs, at.caller, at.agent_id, std::get<std::string>(id));
  if (!task) co_return a2a::FromError(task.error());
  co_return json::value(std::move(*task));
}

// A stream of one task as it stands: a resent streaming message's answer.
Response OneTaskStream(json::object task, const A2aInterface& at) {
  Response response;
  response.content_type = "text/event-stream";
  json::value frame = json::object{{"task", std::move(task)}};
  if (at.legacy) frame = a2a::legacy::LegacyResult(frame);
  if (at.rpc_id) frame = a2a::JsonRpcResultBody(*at.rpc_id, std::move(frame));
  response.stream = [text = "data: " + json_text::Write(frame) +
                            "\n\n"](ResponseStream& out) -> asio::awaitable<void> {
    co_await out.WriteLast(text);
  };
  return response;
}

// SendStreamingMessage: the run starts here and its events are the stream, from the task's first
// state to its end or pause. A message sent before, or refused before it started, is a stream of
// its task as it stands.
asio::awaitable<A2aAnswer> StreamTask(RouteDeps& deps, Request& r, const InvokeCall& call,
                                      const A2aInterface& at, const a2a::InlinePush* push) {
  auto ticket =
      deps.streams.Enter(call.caller, call.agent_id, "", co_await asio::this_coro::executor);
  if (!ticket) co_return a2a::FromError(ticket.error());
  StreamAnswer begun = co_await deps.runs.Stream(call, /*notify=*/false, /*hand_over=*/true);
  if (const auto* replay = std::get_if<StoredResponse>(&begun.answer)) {
    auto task = co_await a2a::ReplayedTask(deps.runs, call, *replay, push);
    if (!task) co_return a2a::FromError(task.error());
    co_return OneTaskStream(std::move(*task), at);
  }
  const auto& run = std::get<Result<RunRecord>>(begun.answer);
  if (!run) {
    if (!a2a::RejectsTask(run.error())) co_return a2a::FromError(run.error());
    const std::string id = ids::Make(ids::kRun, crypto::RandomHex(16));
    co_return OneTaskStream(
        a2a::RejectedTask(id, call.request.conversation_id.value_or(""), run.error(), NowMs()), at);
  }
  if (auto saved = co_await a2a::SaveInlinePush(push, *run); !saved)
    co_return a2a::FromError(saved.error());
  auto format = std::make_shared<TaskStreamFrames>(run->id, run->conversation_id, at);
  if (begun.handed)
    co_return OwnRunStream(deps, std::move(begun.handed), std::move(*ticket), std::move(format));
  co_return RunEventStream(deps, run->id, 0, std::move(*ticket), r, false, std::move(format));
}

// Where a paused run's follower picks it up once it is decided: after its pause's event.
asio::awaitable<Result<std::int64_t>> PauseEventOf(Runs& runs, const std::string& run_id) {
  RunCursor cursor{run_id, 0, nullptr, nullptr};
  std::int64_t pause = 0;
  const RunEventSink note = [&pause](const RunEvent& event) {
    if (event.type == "run.requires_action") pause = event.seq;
  };
  AG_CO_TRYV(co_await runs.NextEvents(cursor, std::chrono::milliseconds(0), note, true));
  co_return pause;
}

// A message with a taskId answers the task waiting for its caller (docs/a2a.md, "Answering a
// task"): its decisions and answers decide the run, as POST /api/runs/{id}/approvals does. The
// task is answered at its end or next pause, at once with returnImmediately, or as a stream of
// what follows the pause.
asio::awaitable<A2aAnswer> AnswerTask(RouteDeps& deps, Request& r, const A2aInterface& at,
                                      const a2a::SentMessage& sent, bool stream) {
  auto run = co_await a2a::TaskRun(deps.runs, at.caller, at.agent_id, *sent.task_id);
  if (!run) co_return a2a::FromError(run.error());
  if (sent.context_id && *sent.context_id != run->conversation_id) {
    co_return ProtocolError{
        Fault::kInvalidParams,
        "field 'message.contextId': is not the context of task '" + run->id + "'",
        "message.contextId"};
  }
  if (run->status != RunStatus::kRequiresAction) {
    co_return ProtocolError{Fault::kUnsupportedOperation,
                            "task '" + run->id + "' is " + std::string(RunStatusName(run->status)) +
                                ": only a task in TASK_STATE_INPUT_REQUIRED takes a message"};
  }
  const json::object body = RunBody(*run);
  const auto* pending = body.if_contains("pending_actions");
  auto request = a2a::ReadTaskAnswer(
      sent.parts, pending != nullptr && pending->is_array() ? pending->get_array() : json::array());
  if (auto* refused = std::get_if<ProtocolError>(&request)) co_return std::move(*refused);
  ApprovalRequest decision = std::move(std::get<ApprovalRequest>(request));
  decision.background = stream || sent.return_immediately;
  std::shared_ptr<StreamTicket> ticket;
  std::int64_t after = 0;
  if (stream) {
    auto entered =
        deps.streams.Enter(at.caller, at.agent_id, run->id, co_await asio::this_coro::executor);
    if (!entered) co_return a2a::FromError(entered.error());
    ticket = std::move(*entered);
    auto pause = co_await PauseEventOf(deps.runs, run->id);
    if (!pause) co_return a2a::FromError(pause.error());
    after = *pause;
  }
  auto decided = co_await deps.runs.Decide(at.caller, run->id, std::move(decision));
  if (!decided) co_return a2a::FromError(decided.error());
  if (stream) {
    co_return RunEventStream(deps, run->id, after, std::move(ticket), r, false,
                             std::make_shared<TaskStreamFrames>(run->id, run->conversation_id, at));
  }
  auto task = co_await a2a::GetTask(deps.runs, at.caller, at.agent_id, run->id);
  if (!task) co_return a2a::FromError(task.error());
  co_return json::value(json::object{{"task", json::value(std::move(*task))}});
}

}  // namespace

asio::awaitable<A2aAnswer> SendMessageOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                         const json::value& params, bool stream) {
  const bool offered = deps.a2a_push != nullptr && deps.a2a_push->Offered();
  auto read = a2a::ReadSendMessage(params, offered && deps.a2a_push->AllowPrivate());
  if (auto* refused = std::get_if<ProtocolError>(&read)) co_return std::move(*refused);
  const a2a::SentMessage& sent = std::get<a2a::SentMessage>(read);
  if (sent.push && !offered) co_return NotOffered("CreateTaskPushNotificationConfig");
  if (sent.task_id) {
    if (sent.push) {
      co_return ProtocolError{Fault::kInvalidParams,
                              "field 'configuration.taskPushNotificationConfig': an answer to a "
                              "task adds no config; use CreateTaskPushNotificationConfig",
                              "configuration.taskPushNotificationConfig"};
    }
    co_return co_await AnswerTask(deps, r, at, sent, stream);
  }
  std::optional<a2a::InlinePush> push;
  if (sent.push) push.emplace(a2a::InlinePush{*deps.a2a_push, *sent.push, at.legacy});
  InvokeRequest request;
  request.message = sent.text;
  request.stateful = true;
  request.conversation_id = sent.context_id;
  request.instance_id = at.instance_id;
  // Each instance's messages are its own: the same messageId to two instances is two tasks.
  const std::optional<std::string> key = a2a::MessageKey(
      at.instance_id ? at.agent_id + ":" + *at.instance_id : at.agent_id, sent.message_id);
  const std::string fingerprint = Idempotency::Fingerprint(
      "a2a", at.agent_id, json_text::WriteCanonical(params.get_object().at("message")));
  InvokeCall call{.caller = at.caller,
                  .agent_id = at.agent_id,
                  .request = request,
                  .key = key,
                  .fingerprint = fingerprint,
                  .answer = a2a::TaskAnswer(),
                  .trace = r.trace};
  const a2a::InlinePush* pushed = push ? &*push : nullptr;
  if (!stream) {
    auto task =
        co_await a2a::SendMessage(deps.runs, call, sent.return_immediately, NowMs(), pushed);
    if (!task) co_return a2a::FromError(task.error());
    co_return json::value(
        json::object{{"task", json::value(std::move(*task))}});  // a SendMessageResponse
  }
  co_return co_await StreamTask(deps, r, call, at, pushed);
}

asio::awaitable<A2aAnswer> GetTaskOp(RouteDeps& deps, const A2aInterface& at,
                                     const json::value& params) {
  return OnTask(deps, at, params, a2a::GetTask);
}

asio::awaitable<A2aAnswer> CancelTaskOp(RouteDeps& deps, const A2aInterface& at,
                                        const json::value& params) {
  return OnTask(deps, at, params, a2a::CancelTask);
}

asio::awaitable<A2aAnswer> ListTasksOp(RouteDeps& deps, const A2aInterface& at,
                                       const json::value& params) {
  auto read = a2a::ReadListTasks(params);
  if (auto* refused = std::get_if<ProtocolError>(&read)) co_return std::move(*refused);
  a2a::TasksAsked asked = std::get<a2a::TasksAsked>(read);
  auto may = co_await MayUse(deps.tenants, at.caller, at.agent_id, "chat");
  if (!may) co_return a2a::FromError(may.error());
  asked.none = asked.none || !*may;
  auto page = co_await a2a::ListTasks(deps.store, at.caller, at.agent_id, asked);
  if (!page) co_return a2a::FromError(page.error());
  co_return json::value(std::move(*page));
}

asio::awaitable<A2aAnswer> SubscribeOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                       const json::value& params) {
  auto id = TaskIdOf(params);
  if (auto* refused = std::get_if<ProtocolError>(&id)) co_return std::move(*refused);
  auto run = co_await a2a::TaskRun(deps.runs, at.caller, at.agent_id, std::get<std::string>(id));
  if (!run) co_return a2a::FromError(run.error());
  if (HasEnded(run->status)) {
    co_return ProtocolError{Fault::kUnsupportedOperation,
                            "task '" + run->id + "' has ended; read it with GetTask"};
  }
  auto ticket =
      deps.streams.Enter(at.caller, at.agent_id, run->id, co_await asio::this_coro::executor);
  if (!ticket) co_return a2a::FromError(ticket.error());
  co_return RunEventStream(deps, run->id, 0, std::move(*ticket), r, false,
                           std::make_shared<TaskStreamFrames>(run->id, run->conversation_id, at));
}

asio::awaitable<A2aAnswer> PushConfigOp(RouteDeps& deps, const A2aInterface& at,
                                        std::string_view method, const json::value& params) {
  if (deps.a2a_push == nullptr || !deps.a2a_push->Offered()) co_return NotOffered(method);
  // A pointer, not a reference: GCC 12 loses a coroutine's local references across a suspension.
  a2a::TaskPushConfigs* configs = deps.a2a_push;
  const bool create = method == "CreateTaskPushNotificationConfig";
  std::string task_id;
  std::string id;
  std::optional<a2a::PushConfigAsked> asked;
  if (create) {
    auto read = a2a::ReadPushConfig(params, "", configs->AllowPrivate(), /*needs_task=*/true);
    if (auto* refused = std::get_if<ProtocolError>(&read)) co_return std::move(*refused);
    asked = std::move(std::get<a2a::PushConfigAsked>(read));
    task_id = asked->task_id;
  } else {
    // Get without an id reads the task's default config (0.3 sends none).
    auto read = a2a::ReadPushConfigName(params, method == "DeleteTaskPushNotificationConfig");
    if (auto* refused = std::get_if<ProtocolError>(&read)) co_return std::move(*refused);
    task_id = std::get<a2a::PushConfigNamed>(read).task_id;
    id = std::get<a2a::PushConfigNamed>(read).id;
  }
  auto run = co_await a2a::TaskRun(deps.runs, at.caller, at.agent_id, task_id);
  if (!run) co_return a2a::FromError(run.error());
  Result<json::object> answer = json::object{};
  if (create) {
    answer = co_await configs->Save(*run, std::move(*asked), at.legacy);
  } else if (method == "GetTaskPushNotificationConfig") {
    answer = co_await configs->Get(*run, id);
  } else if (method == "ListTaskPushNotificationConfigs") {
    answer = co_await configs->List(*run);
  } else if (auto deleted = co_await configs->Delete(*run, id); !deleted) {
    answer = deleted.error();
  }
  if (!answer) co_return a2a::FromError(answer.error());
  co_return json::value(std::move(*answer));
}

ProtocolError NotOffered(std::string_view operation) {
  if (operation == "GetExtendedAgentCard") {
    return {Fault::kExtendedAgentCardNotConfigured,
            "this agent has no extended card: its card is the whole of it (capabilities."
            "extendedAgentCard: false)"};
  }
  if (operation.find("PushNotificationConfig") != std::string_view::npos) {
    return {Fault::kPushNotificationNotSupported,
            "push notifications are not offered by this agent (its card says "
            "capabilities.pushNotifications: false)"};
  }
  return {Fault::kUnsupportedOperation,
          std::string(operation) + " is not offered by this agent (docs/a2a.md)"};
}

std::string_view RestContentType(const Request& r) {
  for (const char* header : {"content-type", "accept"}) {
    const auto value = r.Header(header);
    if (value && value->find("application/a2a+json") != std::string_view::npos)
      return "application/a2a+json";
  }
  return "application/json";
}

}  // namespace agentgate::http
