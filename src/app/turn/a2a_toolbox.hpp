#pragma once
// The remote A2A agents an agent calls as tools (docs/a2a.md, "Remote agents as tools"), as one
// turn sees them. A remote agent's card is fetched when a turn first needs it and kept 5 minutes
// (a failure 5 s, so a dead agent does not slow every turn); a card whose JSON-RPC interface is
// not on the card URL's origin leaves its agent out of the turn, noted in the transcript. A call
// sends the model's message with SendMessage and waits for the remote task's end or pause: a
// completed task's reply is the tool's result, a task waiting for input asks this run's caller
// (a question need), and the answer continues the remote task.

#include "app/turn/mcp_toolbox.hpp"
#include "app/turn/tool_headers.hpp"
#include "domain/a2a/remote_agent.hpp"
#include "domain/admin/agent_config.hpp"
#include "ports/clock.hpp"
#include "ports/http_caller.hpp"
#include "runtime/tracer.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace agentgate {

struct A2aToolTarget {
  std::string rpc_url;  // the card's JSON-RPC 1.0 interface, on the card URL's origin
  HeaderList headers;   // the config's, resolved
  std::chrono::milliseconds timeout{60000};
  Approval approval = Approval::kNever;
  bool streaming = false;  // its card says so: a call is streamed, and its progress reported
};

// A streamed call's progress: the remote task's state ("working", ...) and the characters of its
// reply so far.
using RemoteProgress = std::function<void(std::string_view state, std::int64_t chars)>;

// What one turn may call of its agent's remote A2A agents.
struct A2aTurnTools {
  std::vector<ToolSpec> offered;
  std::map<std::string, A2aToolTarget> by_model_name;
  std::vector<std::string> notes;  // agents left out, and why
};

class A2aToolbox {
 public:
  // Each card kept is at most ~12 KiB (its description, skills and URL, clipped): ~12 MiB at most.
  static constexpr std::size_t kMaxCachedCards = 1024;
  static constexpr std::size_t kMaxCardBytes = 256 * 1024;     // a card larger is refused
  static constexpr std::size_t kMaxAnswerBytes = 1024 * 1024;  // a SendMessage answer

  A2aToolbox(HttpCaller& http, ToolHeaders& headers, const Clock& clock,
             std::size_t max_cards = kMaxCachedCards)
      : http_(http), headers_(headers), clock_(clock), cards_(max_cards) {}

  boost::asio::awaitable<A2aTurnTools> ToolsFor(const std::string& org_id,
                                                const AgentConfig& config, SteadyTime deadline,
                                                const SpanContext* trace = nullptr);

  // The model's call `call_id` of the agent behind `target`: a new task, or, `answering` a
  // question it asked, the message that continues its task (a declined question cancels it).
  // Streamed where the agent streams, `progress` told as its task goes on; its answer is then
  // the task as it ended or paused (GetTask).
  boost::asio::awaitable<McpToolbox::Answer> Call(
      const A2aToolTarget& target, const std::string& call_id, const std::string& arguments_json,
      SteadyTime deadline, std::size_t max_chars, const SpanContext* trace = nullptr,
      const McpToolbox::InputAnswer* answering = nullptr, const RemoteProgress* progress = nullptr);

  std::size_t CachedCards();

 private:
  struct CardEntry {
    Result<a2a::RemoteCard> card;
    std::int64_t fresh_until_ms = 0;
  };
  boost::asio::awaitable<std::shared_ptr<const CardEntry>> CardOf(const std::string& card_url,
                                                                  const HeaderList& headers,
                                                                  std::chrono::milliseconds timeout,
                                                                  const SpanContext* trace);
  boost::asio::awaitable<Result<a2a::RemoteCard>> Fetch(const std::string& card_url,
                                                        const HeaderList& headers,
                                                        std::chrono::milliseconds timeout,
                                                        const SpanContext* trace);
  // A JSON-RPC call of the remote agent: its result, or the error the model reads.
  boost::asio::awaitable<Result<boost::json::value>> Rpc(const A2aToolTarget& target,
                                                         std::string_view method,
                                                         boost::json::object params,
                                                         std::chrono::milliseconds timeout,
                                                         const SpanContext* trace);
  // SendStreamingMessage, its events told to `progress`; the result as SendMessage's would be.
  boost::asio::awaitable<Result<boost::json::value>> Stream(const A2aToolTarget& target,
                                                            boost::json::object params,
                                                            std::chrono::milliseconds timeout,
                                                            const SpanContext* trace,
                                                            const RemoteProgress& progress);

  // A streamed call's turn was canceled: its remote task is canceled too, on its own (the turn
  // does not wait for it), within 5 s.
  boost::asio::awaitable<void> CancelRemoteTask(A2aToolTarget target, std::string task_id);

  HttpCaller& http_;
  ToolHeaders& headers_;
  const Clock& clock_;
  FreshCache<CardEntry> cards_;  // by card URL and credential
};

}  // namespace agentgate
