#include "app/openai/responses.hpp"
#include "domain/agent/stored_messages.hpp"

#include "app/access/authenticate.hpp"

#include "domain/openai/response_request.hpp"
#include "domain/resource_ids.hpp"
#include "domain/runs/paused_turn.hpp"

#include <boost/json/parse.hpp>

namespace agentgate {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

json::object ParsedObject(const std::string& text) {
  boost::system::error_code ec;
  auto value = json::parse(text, ec);
  if (ec || !value.is_object()) return {};
  return std::move(value.as_object());
}

Error NoSuchResponse(std::string_view field, const std::string& response_id) {
  return Error(ErrorCode::kNotFound,
               "field '" + std::string(field) + "': no response '" + response_id +
                   "' in this environment (a response made with \"store\": false is kept "
                   "nowhere)");
}

// A paused run's answer so far, as an invoke body: what waits, and what it cost.
json::object PausedAnswer(const RunRecord& run) {
  json::object body{
      {"response", ""},
      {"blocked", false},
      {"conversation_id",
       run.conversation_id.empty() ? json::value(nullptr) : json::value(run.conversation_id)},
      {"terminated_reason", "approval_required"},
      {"run_id", run.id}};
  if (auto paused = ParsePausedTurn(run.paused_json)) {
    if (!paused->needs_answer.empty()) body["terminated_reason"] = "input_required";
    body["usage"] = json::object{{"input_tokens", paused->usage.input_tokens},
                                 {"output_tokens", paused->usage.output_tokens},
                                 {"cost_usd", paused->cost_usd},
                                 {"model_calls", paused->model_calls}};
    body["pending_actions"] = PendingActionsJson(*paused);
  }
  return body;
}

openai::ResponseHeader HeaderOfRun(const RunRecord& run, const std::string& response_id) {
  openai::ResponseHeader header;
  header.id = response_id;
  header.model = run.agent_id;
  header.created_at = run.created_at_ms / 1000;
  return header;
}

}  // namespace

json::object ResponseOfRun(const RunRecord& run, const openai::ResponseHeader& header) {
  switch (run.status) {
    case RunStatus::kQueued:
      return openai::UnansweredResponse(header, "queued");
    case RunStatus::kRunning:
      return openai::UnansweredResponse(header, "in_progress");
    case RunStatus::kRequiresAction:
      return openai::AnsweredResponse(header, PausedAnswer(run));
    case RunStatus::kCompleted:
      return openai::AnsweredResponse(header, ParsedObject(run.result_json));
    case RunStatus::kCanceled:
      return openai::UnansweredResponse(header, "cancelled");
    case RunStatus::kFailed:
      break;
  }
  const json::object stored = ParsedObject(run.error_json);
  json::object error{{"code", stored.contains("code") ? stored.at("code") : json::value("failed")},
                     {"message", stored.contains("message") ? stored.at("message") : ""}};
  return openai::UnansweredResponse(header, "failed", &error);
}

asio::awaitable<Result<ContinuedResponse>> ContinuedFrom(StoreRunner& store, Runs& runs,
                                                         const Caller& caller,
                                                         const std::string& response_id,
                                                         const std::string& field) {
  const auto hex = ids::ResponseHex(response_id);
  if (!hex) co_return NoSuchResponse(field, response_id);
  const std::string turn_id = ids::Make(ids::kTurn, *hex);
  AG_CO_TRY(const auto turn, co_await store.Run([&](Store& s) { return s.GetTurn(turn_id); }));
  if (!turn) {
    // Not answered yet, or none: its run, if it has one, says which.
    auto run = co_await runs.Get(caller, ids::Make(ids::kRun, *hex));
    if (!run) {
      // Refused for any reason of the caller's (none, another's, no grant on its agent): no such
      // response, naming nothing of what was found.
      if (IsServiceFailure(run.error())) co_return run.error();
      co_return NoSuchResponse(field, response_id);
    }
    if (run->status == RunStatus::kRequiresAction) {
      co_return Error(ErrorCode::kConflict,
                      "field '" + field +
                          "': that response is paused for approval: decide its "
                          "run " +
                          run->id + " (POST /api/runs/" + run->id +
                          "/approvals), then continue from it");
    }
    if (!HasEnded(run->status)) {
      co_return Error(ErrorCode::kConflict,
                      "field '" + field +
                          "': that response has not completed yet (read it at "
                          "GET /v1/responses/" +
                          response_id + ")");
    }
    co_return Error(
        ErrorCode::kNotFound,
        "field '" + field + "': that response " +
            std::string(run->status == RunStatus::kFailed ? "failed" : "was cancelled") +
            ", and nothing of it was stored");
  }
  if (turn->org_id != caller.org_id || turn->env != caller.env)
    co_return NoSuchResponse(field, response_id);
  if (turn->conversation_id.empty()) {
    co_return InvalidField(field,
                           "that response was not stored (\"store\": false): it has no "
                           "conversation to continue");
  }
  AG_CO_TRY(const auto last,
            co_await store.Run([&](Store& s) { return s.LastMessageTurn(turn->conversation_id); }));
  if (last != turn_id) {
    co_return Error(ErrorCode::kResponseNotLatest,
                    "field '" + field +
                        "': the conversation has moved on from that response; "
                        "continue from its latest response");
  }
  co_return ContinuedResponse{turn->conversation_id, turn_id};
}

namespace {

// The response of the run `use` (Runs::Get or Runs::Cancel) answers for its id.
using RunUse = asio::awaitable<Result<RunRecord>> (Runs::*)(const Caller&, const std::string&);
asio::awaitable<Result<json::object>> OnRun(StoreRunner& store, Runs& runs, RunUse use,
                                            const Caller& caller, const std::string& response_id) {
  const auto hex = ids::ResponseHex(response_id);
  if (!hex) co_return NoSuchResponse("response_id", response_id);
  auto run = co_await (runs.*use)(caller, ids::Make(ids::kRun, *hex));
  if (!run) {
    if (run.error().code == ErrorCode::kRunNotFound)
      co_return NoSuchResponse("response_id", response_id);
    co_return run.error();
  }
  openai::ResponseHeader header = HeaderOfRun(*run, response_id);
  AG_CO_TRYV(co_await WithAsk(store, caller, header));
  co_return ResponseOfRun(*run, header);
}

}  // namespace

asio::awaitable<Result<void>> WithAsk(StoreRunner& store, const Caller& caller,
                                      openai::ResponseHeader& header) {
  AG_CO_TRY(const auto ask,
            co_await store.Run([&](Store& s) { return s.GetResponseAsk(header.id); }));
  if (ask && ask->org_id == caller.org_id && ask->env == caller.env)
    openai::ApplyAsked(ask->asked_json, header);
  co_return Result<void>{};
}

asio::awaitable<Result<json::object>> ReadResponse(StoreRunner& store, Runs& runs,
                                                   const Caller& caller,
                                                   const std::string& response_id) {
  return OnRun(store, runs, &Runs::Get, caller, response_id);
}

namespace {

// The invoke body a stored turn's record and messages make, as its call answered it (less what
// only the call knew: its output, pending actions and per-model usage).
json::object StoredTurnBody(const TurnRecord& turn, const std::vector<MessageRecord>& messages) {
  // The reply, and the calls of the caller's functions after it, of the turn's last step.
  std::string reply;
  json::array calls;
  for (const auto& m : messages) {
    if (m.role == "assistant") {
      reply = m.content;
    } else if (m.role == stored_messages::kFunctionCall) {
      const auto call = stored_messages::ReadStoredCall(m.content);
      calls.push_back(json::object{
          {"call_id", call.call_id}, {"name", call.name}, {"arguments", call.arguments}});
    } else {
      reply.clear();
      calls.clear();
    }
  }
  json::object body{{"response", reply},
                    {"turn_id", turn.id},
                    {"conversation_id", turn.conversation_id},
                    {"blocked", turn.blocked},
                    {"model_calls", turn.model_calls}};
  body["terminated_reason"] =
      turn.stop_reason.empty() ? json::value(nullptr) : json::value(turn.stop_reason);
  body["usage"] =
      json::object{{"input_tokens", turn.input_tokens}, {"output_tokens", turn.output_tokens}};
  if (!calls.empty()) body["tool_calls"] = std::move(calls);
  return body;
}

}  // namespace

asio::awaitable<Result<json::object>> ReadStoredResponse(StoreRunner& store,
                                                         TenantDirectory& tenants, Runs& runs,
                                                         const Caller& caller,
                                                         const std::string& response_id) {
  auto ran = co_await ReadResponse(store, runs, caller, response_id);
  if (ran || ran.error().code != ErrorCode::kNotFound) co_return ran;
  // No run: a plain response, kept as its turn and the messages it wrote.
  AG_CO_TRY(const auto turn, co_await AnsweringTurn(store, tenants, caller, response_id));
  const auto& [record, messages] = turn;
  openai::ResponseHeader header;
  header.id = response_id;
  header.model = record.agent_id;
  header.created_at = record.started_at_ms / 1000;
  AG_CO_TRYV(co_await WithAsk(store, caller, header));
  co_return openai::AnsweredResponse(header, StoredTurnBody(record, messages));
}

asio::awaitable<Result<AnsweredTurn>> AnsweringTurn(StoreRunner& store, TenantDirectory& tenants,
                                                    const Caller& caller,
                                                    const std::string& response_id) {
  const auto hex = ids::ResponseHex(response_id);
  if (!hex) co_return NoSuchResponse("response_id", response_id);
  const std::string turn_id = ids::Make(ids::kTurn, *hex);
  AG_CO_TRY(auto turn, co_await store.Run([&](Store& s) { return s.GetTurn(turn_id); }));
  if (!turn || turn->org_id != caller.org_id || turn->env != caller.env ||
      turn->conversation_id.empty())
    co_return NoSuchResponse("response_id", response_id);
  AG_CO_TRY(const bool may, co_await MayUse(tenants, caller, turn->agent_id, "chat"));
  if (!may) co_return NoSuchResponse("response_id", response_id);
  AG_CO_TRY(auto messages, co_await store.Run([&](Store& s) {
    return s.TurnMessages(turn->conversation_id, turn_id);
  }));
  if (messages.empty()) co_return NoSuchResponse("response_id", response_id);  // a pause's record
  co_return AnsweredTurn{std::move(*turn), std::move(messages)};
}

asio::awaitable<Result<json::object>> CancelResponse(StoreRunner& store, Runs& runs,
                                                     const Caller& caller,
                                                     const std::string& response_id) {
  return OnRun(store, runs, &Runs::Cancel, caller, response_id);
}

}  // namespace agentgate
