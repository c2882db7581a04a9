#include "app/invoke_body.hpp"

namespace agentgate {

namespace json = boost::json;

json::object InvokeBody(const InvokeResult& result) {
  json::object out{{"response", result.response}, {"blocked", result.blocked}};
  out["conversation_id"] =
      result.conversation_id ? json::value(*result.conversation_id) : json::value(nullptr);
  const auto reason = StopReasonName(result.stop_reason);
  out["terminated_reason"] = reason ? json::value(std::string(*reason)) : json::value(nullptr);
  out["usage"] = json::object{{"input_tokens", result.usage.input_tokens},
                              {"output_tokens", result.usage.output_tokens},
                              {"cost_usd", result.cost_usd},
                              {"model_calls", result.model_calls}};
  return out;
}

}  // namespace agentgate
