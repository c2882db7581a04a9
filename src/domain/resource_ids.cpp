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

namespace {

bool IsHex(std::string_view text) {
  return !text.empty() && text.size() <= 64 && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

}  // namespace

std::optional<std::string> ResponseHex(std::string_view response_id) {
  if (!response_id.starts_with(kResponse)) return std::nullopt;
  const std::string_view hex = response_id.substr(kResponse.size());
  if (!IsHex(hex)) return std::nullopt;
  return std::string(hex);
}

std::string FunctionCallOfResponse(std::string_view response_id, std::size_t n) {
  return Make(kFunctionCall, PartOf(response_id)) + "_" + std::to_string(n);
}

std::optional<std::string> ResponseOfFunctionCall(std::string_view function_call_id) {
  if (!function_call_id.starts_with(kFunctionCall)) return std::nullopt;
  const std::string_view rest = function_call_id.substr(kFunctionCall.size());
  const auto underscore = rest.find('_');
  if (underscore == std::string_view::npos) return std::nullopt;
  const std::string_view hex = rest.substr(0, underscore);
  const std::string_view digits = rest.substr(underscore + 1);
  if (!IsHex(hex) || digits.empty() || digits.size() > 4 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return Make(kResponse, hex);
}

std::string ItemOf(std::string_view conversation_id, std::int64_t seq) {
  return Make(kMessage, PartOf(conversation_id)) + "_" + std::to_string(seq);
}

std::optional<ItemPlace> ItemPlaceOf(std::string_view item_id) {
  if (!item_id.starts_with(kMessage)) return std::nullopt;
  const std::string_view rest = item_id.substr(kMessage.size());
  const auto underscore = rest.find('_');
  if (underscore == std::string_view::npos) return std::nullopt;
  const std::string_view hex = rest.substr(0, underscore);
  const std::string_view digits = rest.substr(underscore + 1);
  if (!IsHex(hex) || digits.empty() || digits.size() > 18 || digits.front() == '0' ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return ItemPlace{Make(kConversation, hex), std::stoll(std::string(digits))};
}

}  // namespace agentgate::ids
