#include "app/turn/mcp_toolbox.hpp"

#include "domain/mcp/elicitation.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>

namespace agentgate {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using std::chrono::milliseconds;

constexpr std::int64_t kDefaultTtlMs = 5 * 60 * 1000;
constexpr std::int64_t kMinTtlMs = 10 * 1000;
constexpr std::int64_t kMaxTtlMs = 10 * 60 * 1000;
constexpr std::int64_t kFailureTtlMs = 5 * 1000;

std::string ErrorText(const mcp::RpcError& error) {
  return "error: the MCP server refused the call (" + std::to_string(error.code) +
         "): " + error.message;
}

}  // namespace

std::size_t McpToolbox::CachedServers() {
  return lists_.size();
}

void McpToolbox::Forget(const std::string& key) {
  lists_.Forget(key);
}

asio::awaitable<McpToolbox::ToolList> McpToolbox::Fetch(const McpEndpoint& endpoint,
                                                        milliseconds timeout,
                                                        const SpanContext* trace) {
  const auto deadline = clock_.SteadyNow() + timeout;
  ToolList list;
  std::optional<std::int64_t> ttl;
  std::optional<std::string> cursor;
  for (int page = 0; page < kMaxPages; ++page) {
    McpCall call{"tools/list", json::object{}, {}, trace};
    if (cursor) call.params["cursor"] = *cursor;
    const milliseconds left = CallBudget(timeout, deadline, clock_);
    auto reply = co_await client_.Request(endpoint, call, left);
    if (!reply) {
      list.failure = reply.error().message;
      break;
    }
    if (reply->error) {
      list.failure = "tools/list refused: " + reply->error->message;
      break;
    }
    auto parsed = mcp::ParseToolList(*reply->result);
    if (!parsed) {
      list.failure = parsed.error().message;
      break;
    }
    for (auto& t : parsed->tools) list.tools.push_back(std::move(t));
    for (auto& r : parsed->rejected) list.rejected.push_back(std::move(r));
    if (parsed->ttl_ms) ttl = ttl ? std::min(*ttl, *parsed->ttl_ms) : *parsed->ttl_ms;
    cursor = parsed->next_cursor;
    if (!cursor) break;
  }
  const std::int64_t now = clock_.NowMs();
  list.fresh_until_ms =
      now + (list.failure.empty() ? std::clamp(ttl.value_or(kDefaultTtlMs), kMinTtlMs, kMaxTtlMs)
                                  : kFailureTtlMs);
  co_return list;
}

asio::awaitable<std::shared_ptr<const McpToolbox::ToolList>> McpToolbox::ListOf(
    const McpEndpoint& endpoint, milliseconds timeout, const SpanContext* trace) {
  const std::string key = endpoint.Key();
  if (auto fresh = lists_.Find(key, clock_.NowMs())) co_return fresh;
  auto list = std::make_shared<const ToolList>(co_await Fetch(endpoint, timeout, trace));
  lists_.Put(key, list);
  co_return list;
}

asio::awaitable<McpTurnTools> McpToolbox::ToolsFor(const std::string& org_id,
                                                   const AgentConfig& config, SteadyTime deadline,
                                                   const SpanContext* trace) {
  McpTurnTools out;
  for (const auto& server : config.mcp_servers) {
    auto headers = co_await headers_.Resolve(org_id, server.headers);
    if (!headers) {
      out.notes.push_back("mcp server '" + server.name + "' left out: " + headers.error().message);
      continue;
    }
    const McpEndpoint endpoint{server.url, std::move(*headers)};
    const milliseconds timeout = std::chrono::seconds(server.timeout_seconds);
    const milliseconds left = CallBudget(timeout, deadline, clock_);
    auto list = co_await ListOf(endpoint, left, trace);
    if (!list->failure.empty()) {
      out.notes.push_back("mcp server '" + server.name + "' left out: " + list->failure);
      continue;
    }
    for (const auto& rejected : list->rejected)
      out.notes.push_back("mcp server '" + server.name + "' tool left out: " + rejected);
    for (const auto& tool : list->tools) {
      if (!server.Allows(tool.name)) continue;
      auto name = mcp::ModelToolName(server.name, tool.name);
      if (!name) {
        out.notes.push_back("mcp server '" + server.name + "' tool '" + tool.name +
                            "' left out: its name is too long for a model");
        continue;
      }
      if (out.by_model_name.contains(*name)) {
        out.notes.push_back("mcp server '" + server.name + "' tool '" + tool.name +
                            "' left out: its name collides with another tool");
        continue;
      }
      out.offered.push_back(ToolSpec{*name, tool.description, tool.input_schema});
      out.by_model_name.emplace(*name, McpToolTarget{endpoint, tool, timeout, server.approval});
    }
  }
  co_return out;
}

asio::awaitable<McpToolbox::Answer> McpToolbox::Call(const McpToolTarget& target,
                                                     const std::string& arguments_json,
                                                     SteadyTime deadline, std::size_t max_chars,
                                                     const SpanContext* trace,
                                                     const InputAnswer* answering) {
  boost::system::error_code ec;
  auto arguments = json::parse(arguments_json.empty() ? "{}" : arguments_json, ec);
  if (ec || !arguments.is_object()) co_return Answer{"error: the arguments must be a JSON object"};
  McpCall call{"tools/call",
               json::object{{"name", target.tool.name}, {"arguments", arguments}},
               {{"Mcp-Name", mcp::EncodedHeaderValue(target.tool.name)}},
               trace};
  if (answering != nullptr) mcp::AddInputResponse(call.params, answering->ask, answering->content);
  for (auto& h : mcp::ParamHeaders(target.tool, arguments.get_object()))
    call.extra_headers.push_back(std::move(h));
  const milliseconds left = CallBudget(target.timeout, deadline, clock_);
  auto reply = co_await client_.Request(target.endpoint, call, left);
  if (!reply) co_return Answer{"error: " + reply.error().message};
  if (reply->tools_list_changed) Forget(target.endpoint.Key());
  if (reply->error) {
    // A tool the server no longer has: its list is fetched again on the next turn.
    if (reply->error->code == mcp::kInvalidParams || reply->error->code == mcp::kMethodNotFound)
      Forget(target.endpoint.Key());
    co_return Answer{ErrorText(*reply->error)};
  }
  if (auto asked = mcp::ReadInputRequired(*reply->result)) {
    if (!*asked) co_return Answer{"error: " + asked->error().message};
    co_return Answer{"", std::move(**asked)};
  }
  co_return Answer{mcp::RenderCallResult(*reply->result, max_chars)};
}

}  // namespace agentgate
