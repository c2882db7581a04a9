#include "domain/resource_ids.hpp"

#include <algorithm>

namespace agentgate::ids {

std::string Make(std::string_view prefix, std::string_view part) {
  std::string id;
  id.reserve(prefix.size() + part.size());
  id.append(prefix).append(part);
  return id;
}

std::string_view PartOf(std::string_view id) {
  const auto underscore = id.find('_');
  return underscore == std::string_view::npos ? id : id.substr(underscore + 1);
}

std::string TurnOfRun(std::string_view run_id) {
  return Make(kTurn, PartOf(run_id));
}

std::string RunOfTurn(std::string_view turn_id) {
  return Make(kRun, PartOf(turn_id));
}

std::string ResponseOf(std::string_view run_or_turn_id) {
  return Make(kResponse, PartOf(run_or_turn_id));
}

std::string MessageOfResponse(std::string_view response_id) {
  return Make(kMessage, PartOf(response_id));
}

std::string ChatCompletionOf(std::string_view run_or_turn_id) {
  return Make(kChatCompletion, run_or_turn_id);
}

std::optional<std::string> ResponseHex(std::string_view response_id) {
  if (!response_id.starts_with(kResponse)) return std::nullopt;
  const std::string_view hex = response_id.substr(kResponse.size());
  if (hex.empty() || hex.size() > 64 || !std::all_of(hex.begin(), hex.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      }))
    return std::nullopt;
  return std::string(hex);
}

}  // namespace agentgate::ids
