#pragma once
// One model call. Implementations: OpenAI-compatible, Anthropic, and the built-in offline model.

#include "domain/agent/model_types.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <variant>

namespace agentgate {

using ModelResult = std::variant<ModelReply, ModelFailure>;

class ModelClient {
 public:
  virtual ~ModelClient() = default;
  // Must return within `timeout`; cancellation of the awaiting coroutine cancels the call.
  virtual boost::asio::awaitable<ModelResult> Complete(const ModelRequest& request,
                                                       std::chrono::milliseconds timeout) = 0;
};

}  // namespace agentgate
