#include "app/turn/a2a_toolbox.hpp"

#include "crypto/crypto.hpp"
#include "domain/json_text.hpp"
#include "domain/sse.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>

namespace agentgate {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using std::chrono::milliseconds;

constexpr std::int64_t kCardTtlMs = 5 * 60 * 1000;
constexpr std::int64_t kFailureTtlMs = 5 * 1000;

// A card is kept per URL and credential: another credential may be shown another card.
std::string CardKey(const std::string& card_url, const HeaderList& headers) {
  std::string material = card_url;
  for (const auto& [name, value] : headers) material += "\n" + name + ": " + value;
  return ToHex(crypto::Sha256(material));
}

}  // namespace

std::size_t A2aToolbox::CachedCards() {
  return cards_.size();
}

asio::awaitable<Result<a2a::RemoteCard>> A2aToolbox::Fetch(const std::string& card_url,
                                                           const HeaderList& headers,
                                                           milliseconds timeout,
                                                           const SpanContext* trace) {
  HttpClientRequest request;
  request.url = card_url;  // exactly the operator's URL
  request.headers = headers;
  request.headers.emplace_back("accept", "application/json");
  if (trace != nullptr) request.headers.emplace_back("traceparent", trace->Traceparent());
  request.timeout = timeout;
  request.max_response_bytes = kMaxCardBytes;
  AG_CO_TRY(const auto response, co_await http_.Send(std::move(request)));
  if (response.status != 200) {
    co_return Error(ErrorCode::kUnavailable,
                    "its card answered HTTP " + std::to_string(response.status));
  }
  boost::system::error_code ec;
  const json::value card = json::parse(response.body, ec);
  if (ec) co_return Error(ErrorCode::kUnavailable, "its card is not JSON");
  co_return a2a::ReadRemoteCard(card, card_url);
}

asio::awaitable<std::shared_ptr<const A2aToolbox::CardEntry>> A2aToolbox::CardOf(
    const std::string& card_url, const HeaderList& headers, milliseconds timeout,
    const SpanContext* trace) {
  const std::string key = CardKey(card_url, headers);
  if (auto fresh = cards_.Find(key, clock_.NowMs())) co_return fresh;
  auto fetched = co_await Fetch(card_url, headers, timeout, trace);
  const std::int64_t ttl = fetched ? kCardTtlMs : kFailureTtlMs;
  auto entry =
      std::make_shared<const CardEntry>(CardEntry{std::move(fetched), clock_.NowMs() + ttl});
  cards_.Put(key, entry);
  co_return entry;
}

asio::awaitable<A2aTurnTools> A2aToolbox::ToolsFor(const std::string& org_id,
                                                   const AgentConfig& config, SteadyTime deadline,
                                                   const SpanContext* trace) {
  A2aTurnTools out;
  for (const auto& agent : config.a2a_agents) {
    auto headers = co_await headers_.Resolve(org_id, agent.headers);
    if (!headers) {
      out.notes.push_back("a2a agent '" + agent.name + "' left out: " + headers.error().message);
      continue;
    }
    const milliseconds timeout = std::chrono::seconds(agent.timeout_seconds);
    const auto entry =
        co_await CardOf(agent.card_url, *headers, CallBudget(timeout, deadline, clock_), trace);
    if (!entry->card) {
      out.notes.push_back("a2a agent '" + agent.name +
                          "' left out: " + entry->card.error().message);
      continue;
    }
    out.offered.push_back(a2a::RemoteAgentTool(agent.name, *entry->card));
    out.by_model_name.emplace(agent.name,
                              A2aToolTarget{entry->card->rpc_url, std::move(*headers), timeout,
                                            agent.approval, entry->card->streaming});
  }
  co_return out;
}

namespace {

HttpClientRequest RpcRequest(const A2aToolTarget& target, std::string_view method,
                             json::object params, milliseconds timeout, const SpanContext* trace) {
  HttpClientRequest request;
  request.method = "POST";
  request.url = target.rpc_url;
  request.headers = target.headers;
  request.headers.emplace_back("content-type", "application/json");
  request.headers.emplace_back("a2a-version", "1.0");
  if (trace != nullptr) request.headers.emplace_back("traceparent", trace->Traceparent());
  json::object body;
  body["jsonrpc"] = "2.0";
  body["id"] = 1;
  body["method"] = method;
  body["params"] = std::move(params);
  request.body = json_text::Write(body);
  request.timeout = timeout;
  request.max_response_bytes = A2aToolbox::kMaxAnswerBytes;
  return request;
}

// A JSON-RPC response's result, or its error as the model reads it.
Result<json::value> RpcResult(const json::value& body, int status) {
  const json::object* o = body.if_object();
  if (o == nullptr) {
    return Error(ErrorCode::kUnavailable,
                 "the agent answered HTTP " + std::to_string(status) + " without JSON-RPC");
  }
  if (const auto* error = o->if_contains("error"); error != nullptr && error->is_object()) {
    const auto* message = error->get_object().if_contains("message");
    const auto* code = error->get_object().if_contains("code");
    return Error(
        ErrorCode::kUnavailable,
        "the agent refused the call" +
            (code != nullptr ? " (" + json_text::Write(*code) + ")" : std::string()) + ": " +
            (message != nullptr && message->is_string() ? std::string(message->get_string())
                                                        : std::string("no message")));
  }
  const auto* result = o->if_contains("result");
  if (result == nullptr) return Error(ErrorCode::kUnavailable, "the agent's answer has no result");
  return *result;
}

const json::value* Member(const json::value& v, std::string_view key) {
  const auto* o = v.if_object();
  return o != nullptr ? o->if_contains(key) : nullptr;
}

std::string_view StringAt(const json::value& v, std::string_view key) {
  const auto* found = Member(v, key);
  return found != nullptr && found->is_string() ? std::string_view(found->get_string())
                                                : std::string_view();
}

// What a stream of the remote task said: its id, its state, how much of its reply, and how it
// ended when it was not a task (a message, or an error).
struct StreamSeen {
  std::string task_id;
  std::string state;
  std::int64_t chars = 0;
  std::int64_t reported_chars = 0;
  std::optional<json::value> message;
  std::optional<Error> error;

  // One stream response; true when it is worth telling: a new state, or 256 more characters.
  bool Add(const json::value& result) {
    std::string_view now;
    if (const auto* task = Member(result, "task")) {
      task_id = std::string(StringAt(*task, "id"));
      if (const auto* status = Member(*task, "status")) now = StringAt(*status, "state");
    } else if (const auto* update = Member(result, "statusUpdate")) {
      if (task_id.empty()) task_id = std::string(StringAt(*update, "taskId"));
      if (const auto* status = Member(*update, "status")) now = StringAt(*status, "state");
    } else if (const auto* artifact = Member(result, "artifactUpdate")) {
      const auto* a = Member(*artifact, "artifact");
      const auto* parts = a != nullptr ? Member(*a, "parts") : nullptr;
      if (parts != nullptr && parts->is_array()) {
        for (const auto& p : parts->get_array()) chars += std::ssize(StringAt(p, "text"));
      }
    } else if (const auto* m = Member(result, "message")) {
      message = *m;
    }
    bool tell = chars - reported_chars >= 256;
    if (!now.empty() && now != state) {
      state = std::string(now);
      tell = true;
    }
    if (tell) reported_chars = chars;
    return tell;
  }
};

}  // namespace

asio::awaitable<Result<json::value>> A2aToolbox::Rpc(const A2aToolTarget& target,
                                                     std::string_view method, json::object params,
                                                     milliseconds timeout,
                                                     const SpanContext* trace) {
  HttpClientRequest request = RpcRequest(target, method, std::move(params), timeout, trace);
  AG_CO_TRY(const auto response, co_await http_.Send(std::move(request)));
  boost::system::error_code ec;
  const json::value body = json::parse(response.body, ec);
  co_return RpcResult(ec ? json::value() : body, response.status);
}

asio::awaitable<Result<json::value>> A2aToolbox::Stream(const A2aToolTarget& target,
                                                        json::object params, milliseconds timeout,
                                                        const SpanContext* trace,
                                                        const RemoteProgress& progress) {
  const auto started = clock_.SteadyNow();
  HttpClientRequest request =
      RpcRequest(target, "SendStreamingMessage", std::move(params), timeout, trace);
  request.headers.emplace_back("accept", "text/event-stream");
  auto decoder = std::make_shared<SseDecoder>();
  auto seen = std::make_shared<StreamSeen>();
  request.on_event_stream = [decoder, seen, &progress](std::string_view bytes) {
    decoder->Each(bytes, [&](const SseEvent& event) {
      boost::system::error_code ec;
      const json::value frame = json::parse(event.data, ec);
      if (ec) return;
      auto result = RpcResult(frame, 200);
      if (!result) {
        seen->error = result.error();
        return;
      }
      if (seen->Add(*result)) progress(a2a::StateWord(seen->state), seen->chars);
    });
  };
  auto sent = co_await http_.Send(std::move(request));
  if (!sent) {
    // The turn was canceled (or cut short) while the remote task went on: it is not left running.
    const auto state = co_await asio::this_coro::cancellation_state;
    if (state.cancelled() != asio::cancellation_type::none && !seen->task_id.empty()) {
      asio::co_spawn(co_await asio::this_coro::executor, CancelRemoteTask(target, seen->task_id),
                     asio::detached);
    }
    co_return sent.error();
  }
  const HttpClientResponse response = std::move(*sent);
  if (!response.body.empty()) {
    // Not a stream: a JSON-RPC answer whole (an error, most likely).
    boost::system::error_code ec;
    const json::value body = json::parse(response.body, ec);
    co_return RpcResult(ec ? json::value() : body, response.status);
  }
  if (seen->error) co_return *seen->error;
  if (seen->message) {
    json::object answer;
    answer["message"] = *seen->message;
    co_return json::value(std::move(answer));
  }
  if (seen->task_id.empty())
    co_return Error(ErrorCode::kUnavailable, "the agent's stream named no task");
  // The task as it ended or paused, whole.
  json::object get;
  get["id"] = seen->task_id;
  const auto spent = std::chrono::duration_cast<milliseconds>(clock_.SteadyNow() - started);
  const milliseconds left = std::max(milliseconds(1000), timeout - spent);
  AG_CO_TRY(json::value task, co_await Rpc(target, "GetTask", std::move(get), left, trace));
  json::object answer;
  answer["task"] = std::move(task);
  co_return json::value(std::move(answer));
}

asio::awaitable<void> A2aToolbox::CancelRemoteTask(A2aToolTarget target, std::string task_id) {
  json::object params;
  params["id"] = std::move(task_id);
  auto canceled =
      co_await Rpc(target, "CancelTask", std::move(params), milliseconds(5000), nullptr);
  (void)canceled;  // best effort: the remote may have ended it already
}

asio::awaitable<McpToolbox::Answer> A2aToolbox::Call(
    const A2aToolTarget& target, const std::string& call_id, const std::string& arguments_json,
    SteadyTime deadline, std::size_t max_chars, const SpanContext* trace,
    const McpToolbox::InputAnswer* answering, const RemoteProgress* progress) {
  const milliseconds timeout = CallBudget(target.timeout, deadline, clock_);
  std::string text;
  std::optional<a2a::RemoteQuestion> continued;
  if (answering != nullptr) {
    continued = a2a::ReadRemoteAskState(answering->ask.request_state);
    if (!continued)
      co_return McpToolbox::Answer{std::string("error: the agent's question cannot be answered")};
    if (!answering->content) {
      // Declined: the remote task is not left waiting.
      json::object cancel;
      cancel["id"] = continued->task_id;
      auto canceled = co_await Rpc(target, "CancelTask", std::move(cancel), timeout, trace);
      (void)canceled;  // the answer stands either way
      co_return McpToolbox::Answer{
          std::string("error: the user declined to answer the agent's question")};
    }
    text = answering->content->is_string() ? std::string(answering->content->get_string())
                                           : json_text::Write(*answering->content);
  } else {
    auto asked = a2a::RemoteMessageText(arguments_json);
    if (!asked) co_return McpToolbox::Answer{"error: " + asked.error().message};
    text = std::move(*asked);
  }
  // Each message its own id (a model's call ids repeat across turns): the remote agent would
  // take a repeated one as the same message sent again.
  const std::string message_id = call_id + "-" + crypto::RandomHex(8);
  // Built before the co_await: GCC 12 destroys a co_await expression's temporaries twice.
  json::object params =
      continued ? a2a::RemoteSendParams(message_id, text, continued->task_id, continued->context_id)
                : a2a::RemoteSendParams(message_id, text, "", "");
  // Not a ?: of two co_awaits: GCC 12 reads its result from the wrong place.
  Result<json::value> result = Error(ErrorCode::kInternal, "not sent");
  if (target.streaming && progress != nullptr) {
    result = co_await Stream(target, std::move(params), timeout, trace, *progress);
  } else {
    result = co_await Rpc(target, "SendMessage", std::move(params), timeout, trace);
  }
  if (!result) co_return McpToolbox::Answer{"error: " + result.error().message};
  auto answer = a2a::ReadRemoteResult(*result, max_chars);
  if (!answer.question) co_return McpToolbox::Answer{std::move(answer.text)};
  json::object text_schema;
  text_schema["type"] = "string";  // answered with text (GCC 12 cannot brace it in a coroutine)
  ToolAsk ask;
  ask.input_key = std::string(a2a::kRemoteAskKey);
  ask.request_state = a2a::RemoteAskState(*answer.question);
  ask.question = answer.question->question;
  ask.answer_schema = std::move(text_schema);
  McpToolbox::Answer asked;
  asked.ask = std::move(ask);
  co_return asked;
}

}  // namespace agentgate
