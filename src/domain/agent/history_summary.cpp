#include "domain/agent/history_summary.hpp"

#include "domain/agent/prompt.hpp"

#include <algorithm>

namespace agentgate {

std::int64_t SummaryMaxTokens(const AgentConfig& config) {
  const std::int64_t most = std::max<std::int64_t>(64, config.model.max_output_tokens);
  return std::clamp<std::int64_t>(InputBudgetOf(config) / 4, 64, most);
}

ModelRequest SummaryRequest(const AgentConfig& config, const std::string& previous,
                            const std::vector<ChatMessage>& folded) {
  const std::int64_t words = SummaryMaxTokens(config) / 2;
  ModelRequest request;
  request.model = config.model.name;
  request.temperature = config.model.temperature;
  request.max_output_tokens = static_cast<int>(SummaryMaxTokens(config));
  request.system =
      "You keep the running summary of a conversation between a user and an assistant. Rewrite "
      "the summary so it also covers the new messages. Keep names, numbers, identifiers, "
      "decisions, the user's preferences and open questions; drop pleasantries. Answer with the "
      "summary alone, in at most " +
      std::to_string(words) + " words.";
  std::string text = "Summary so far:\n";
  text += previous.empty() ? "(none)" : previous;
  text += "\n\nNew messages:";
  for (const auto& m : folded)
    text += std::string("\n") + (m.role == Role::kAssistant ? "assistant: " : "user: ") + m.content;
  request.messages.push_back(ChatMessage{Role::kUser, std::move(text), {}, "", ""});
  return request;
}

}  // namespace agentgate
