#pragma once
// The built-in offline model (provider kind "offline"): deterministic, no network, so a first
// invoke works anywhere. What it does, in order:
//   1. After tool results, it answers from them (search results are quoted; other tools are
//      reported as "<tool> returned: ..."; actions are confirmed).
//   2. A user message may ask for tool calls explicitly, one per line:
//        /tool <name> <JSON arguments>
//      Each line naming an offered tool becomes a tool call (this exercises tools and actions).
//   3. Otherwise, when the agent has trusted resources, it calls search_resources with the
//      message as the query and then answers from the best passages.
//   4. Otherwise it says it is the offline model and repeats what it was asked.
// Token usage is estimated at about four bytes a token. A streamed call gets its text word by word.

#include "ports/model_client.hpp"

namespace agentgate {

ModelReply OfflineReply(const ModelRequest& request);

class OfflineModelClient final : public ModelClient {
 public:
  boost::asio::awaitable<ModelResult> Complete(const ModelRequest& request,
                                               std::chrono::milliseconds timeout,
                                               const ModelCallOptions& options) override;
};

}  // namespace agentgate
