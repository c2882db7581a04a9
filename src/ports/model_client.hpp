#pragma once
// One model call. Implementations: OpenAI-compatible, Anthropic, and the built-in offline model.

#include "domain/agent/model_types.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <variant>

namespace agentgate {

using ModelResult = std::variant<ModelReply, ModelFailure>;
// Takes a reply's text as the model writes it, piece by piece, on the call's event loop (must not
// block). The pieces joined are the reply's text, unless the call then fails.
using TextSink = std::function<void(std::string_view)>;

// How one call is made beyond its request: streamed to a sink, and under which trace.
struct ModelCallOptions {
  const TextSink* on_text = nullptr;
  std::string traceparent;  // sent as the W3C traceparent header when set (docs/tracing.md)
};

class ModelClient {
 public:
  virtual ~ModelClient() = default;
  // Must return within `timeout`; cancellation of the awaiting coroutine cancels the call. With
  // `options.on_text`, the reply is streamed from the provider where it can be (a plain call
  // otherwise, its text then arriving in one piece).
  virtual boost::asio::awaitable<ModelResult> Complete(const ModelRequest& request,
                                                       std::chrono::milliseconds timeout,
                                                       const ModelCallOptions& options) = 0;
};

}  // namespace agentgate
