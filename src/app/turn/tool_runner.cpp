#include "app/turn/tool_runner.hpp"

#include "domain/agent/prompt.hpp"
#include "domain/agent/user_question.hpp"
#include "domain/runs/run_events.hpp"

#include "domain/agent/approval_rules.hpp"
#include "domain/json_text.hpp"
#include "domain/url_encoding.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>

namespace agentgate {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;

std::optional<json::object> ArgumentsOf(const std::string& arguments) {
  boost::system::error_code ec;
  auto v = json::parse(arguments.empty() ? "{}" : arguments, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return v.get_object();
}

std::string StringArgument(const json::object& args, const char* key) {
  const auto* v = args.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : "";
}

std::string Truncated(std::string text, std::size_t max) {
  if (text.size() > max) text = text.substr(0, max) + "\n[truncated]";
  return text;
}

std::string JoinedMethods(const CrmMetadataTool& tool) {
  std::string out;
  for (const auto& m : tool.methods) out += (out.empty() ? "" : ", ") + m;
  return out;
}

// A turn pauses before a call that needs approval: one that reaches here unapproved is refused.
constexpr const char* kNeedsApproval =
    "error: this call needs a person's approval before it runs, and it was not approved";

}  // namespace

bool ToolRunner::NeedsApproval(const ToolCall& call, const ToolContext& context) const {
  const auto& config = context.agent.config;
  if (call.name == "crm_metadata" && config.crm_metadata_tool) {
    if (config.crm_metadata_tool->approval == Approval::kNever) return false;
    const auto args = ArgumentsOf(call.arguments_json);
    const auto gateway_call = args ? NormalizeGatewayRequest(*args)
                                   : Result<GatewayCall>(InvalidField("arguments", "not JSON"));
    std::optional<std::string_view> method;
    if (gateway_call) method = gateway_call->method;
    return approval::CrmCallNeedsApproval(config.crm_metadata_tool->approval, method);
  }
  if (context.mcp_tools != nullptr) {
    if (auto it = context.mcp_tools->by_model_name.find(call.name);
        it != context.mcp_tools->by_model_name.end()) {
      const McpToolTarget& target = it->second;
      return approval::McpCallNeedsApproval(
          target.approval,
          approval::McpHints{target.tool.read_only_hint, target.tool.destructive_hint});
    }
  }
  if (context.a2a_tools != nullptr) {
    // A message may ask a remote agent for anything: "writes" gates every call, as "always".
    if (auto it = context.a2a_tools->by_model_name.find(call.name);
        it != context.a2a_tools->by_model_name.end())
      return it->second.approval != Approval::kNever;
  }
  for (const auto& tool : config.http_tools) {
    if (tool.name == call.name) return approval::HttpCallNeedsApproval(tool.approval, tool.method);
  }
  return false;  // search_resources, remember, actions: no effect outside agentgate
}

asio::awaitable<ToolResult> ToolRunner::Run(const ToolCall& call, const ToolContext& context,
                                            const SpanContext* trace, bool approved) {
  ToolResult result{call.id, call.name, ""};
  if (!approved && NeedsApproval(call, context)) {
    result.content = kNeedsApproval;
    co_return result;
  }
  const auto args = ArgumentsOf(call.arguments_json);
  const auto& config = context.agent.config;
  if (call.name == kAskUserTool && config.ask_user) {
    // A well-asked question pauses the run before it gets here; this one the model must fix.
    const auto question = ReadUserQuestion(call.arguments_json);
    result.content =
        question ? "error: the question was not asked" : "error: " + question.error().message;
    co_return result;
  }
  if (call.name == "search_resources" && !config.resources.empty()) {
    const std::string query = args ? StringArgument(*args, "query") : "";
    result.content = query.empty() ? "error: give a non-empty \"query\""
                                   : RenderHits(context.agent.resources.Search(query, 3), 1500);
  } else if (call.name == "remember" && config.memory == MemoryMode::kShared) {
    const std::string fact = args ? StringArgument(*args, "fact") : "";
    if (fact.empty() || fact.size() > 1000) {
      result.content = "error: give a \"fact\" of 1 to 1000 characters";
    } else {
      // Saved with the turn: a turn that is refused or canceled remembers nothing.
      context.remembered->push_back(RememberedFact{context.memory_scope, fact, clock_.NowMs()});
      result.content = "Saved.";
    }
  } else if (call.name == "crm_metadata" && config.crm_metadata_tool) {
    // The same gateway call an integration makes, with this turn's org and env credentials.
    auto gateway_call =
        args ? NormalizeGatewayRequest(*args)
             : Result<GatewayCall>(InvalidField("arguments", "must be a JSON object"));
    if (!gateway_call) {
      result.content = "error: " + gateway_call.error().message;
    } else if (!config.crm_metadata_tool->Allows(gateway_call->method)) {
      result.content =
          "error: this agent may not use " + gateway_call->method +
          " with crm_metadata; allowed methods: " + JoinedMethods(*config.crm_metadata_tool);
    } else {
      auto envelope = co_await gateway_.Forward(
          context.memory_scope.org_id, context.memory_scope.env, std::move(*gateway_call), trace);
      result.content = envelope
                           ? Truncated(json_text::Write(RenderEnvelope(*envelope)), kMaxResultChars)
                           : "error: " + std::string(ErrorCodeName(envelope.error().code)) + ": " +
                                 envelope.error().message;
    }
  } else if (IsRemote(call, context)) {
    auto answer = co_await CallRemote(call, context, trace);
    result.content = std::move(answer.text);
    result.ask = std::move(answer.ask);
  } else {
    auto tool = std::find_if(config.http_tools.begin(), config.http_tools.end(),
                             [&](const HttpTool& t) { return t.name == call.name; });
    if (tool == config.http_tools.end()) {
      result.content = "error: there is no tool named '" + call.name + "'";
    } else if (!args) {
      result.content = "error: the arguments must be a JSON object";
    } else {
      result.content = co_await CallHttpTool(*tool, call.arguments_json, context, trace);
    }
  }
  co_return result;
}

bool ToolRunner::IsRemote(const ToolCall& call, const ToolContext& context) const {
  return (context.mcp_tools != nullptr && context.mcp_tools->by_model_name.contains(call.name)) ||
         (a2a_ != nullptr && context.a2a_tools != nullptr &&
          context.a2a_tools->by_model_name.contains(call.name));
}

asio::awaitable<McpToolbox::Answer> ToolRunner::CallRemote(const ToolCall& call,
                                                           const ToolContext& context,
                                                           const SpanContext* trace) {
  // A resumed turn's answer to what the server or agent asked: the call is made again with it.
  const McpToolbox::InputAnswer* answering = nullptr;
  if (context.answering != nullptr) {
    if (auto it = context.answering->find(call.id); it != context.answering->end())
      answering = &it->second;
  }
  if (context.mcp_tools != nullptr && context.mcp_tools->by_model_name.contains(call.name)) {
    co_return co_await mcp_.Call(context.mcp_tools->by_model_name.at(call.name),
                                 call.arguments_json, context.deadline, kMaxResultChars, trace,
                                 answering);
  }
  // Its task's progress goes to the run's followers as tool.progress events (never its text).
  const RemoteProgress progress = [&call, &context](std::string_view state, std::int64_t chars) {
    if (context.report) context.report(run_events::ToolProgress(call.id, call.name, state, chars));
  };
  co_return co_await a2a_->Call(context.a2a_tools->by_model_name.at(call.name), call.id,
                                call.arguments_json, context.deadline, kMaxResultChars, trace,
                                answering, &progress);
}

asio::awaitable<std::string> ToolRunner::CallHttpTool(const HttpTool& tool,
                                                      const std::string& arguments,
                                                      const ToolContext& context,
                                                      const SpanContext* trace) {
  HttpClientRequest request;
  request.method = tool.method;
  request.url = tool.url;  // exactly the operator's URL: the model chooses arguments, never hosts
  auto headers = co_await headers_.Resolve(context.memory_scope.org_id, tool.headers);
  if (!headers) co_return "error: " + headers.error().message;
  request.headers = std::move(*headers);
  if (trace != nullptr) request.headers.emplace_back("traceparent", trace->Traceparent());
  if (tool.method == "GET" || tool.method == "DELETE") {
    // Scalar arguments become query parameters.
    std::string query;
    for (const auto& kv : ArgumentsOf(arguments).value_or(json::object{})) {
      const auto& v = kv.value();
      const std::string text = v.is_string() ? std::string(v.get_string()) : json_text::Write(v);
      query += (query.empty() ? "" : "&") + PercentEncode(kv.key()) + "=" + PercentEncode(text);
    }
    if (!query.empty())
      request.url += (request.url.find('?') == std::string::npos ? "?" : "&") + query;
  } else {
    request.headers.emplace_back("content-type", "application/json");
    request.body = arguments.empty() ? "{}" : arguments;
  }
  request.timeout =
      CallBudget(std::chrono::seconds(tool.timeout_seconds), context.deadline, clock_);
  request.max_response_bytes = kMaxToolResponseBytes;
  auto response = co_await http_.Send(std::move(request));
  if (!response) co_return "error: " + response.error().message;
  co_return "HTTP " + std::to_string(response->status) + "\n" +
      Truncated(std::move(response->body), kMaxResultChars);
}

}  // namespace agentgate
