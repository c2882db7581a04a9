#pragma once
// The ids the service mints, by their prefixes, and the ids derived from one another. A run that
// answers in one turn shares its hex with it ("run_X" answers with "turn_X"), and its OpenAI
// names are read from the same hex ("resp_X", "msg_X"): a response is found by either
// (docs/openai.md). The random part comes from the caller (crypto::TimeOrderedHex or RandomHex):
// the domain mints nothing itself.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate::ids {

inline constexpr std::string_view kRun = "run_";
inline constexpr std::string_view kTurn = "turn_";
inline constexpr std::string_view kConversation = "conv_";
inline constexpr std::string_view kResponse = "resp_";
inline constexpr std::string_view kMessage = "msg_";
inline constexpr std::string_view kChatCompletion = "chatcmpl-";
inline constexpr std::string_view kOrg = "org_";
inline constexpr std::string_view kAgent = "agent_";
inline constexpr std::string_view kWebhook = "wh_";
inline constexpr std::string_view kWebhookSecret = "whsec_";
inline constexpr std::string_view kOAuthClient = "agc_";
inline constexpr std::string_view kOAuthClientSecret = "agcs_";
inline constexpr std::string_view kServer = "srv_";

// `prefix` then `part`: Make(kRun, hex) is "run_<hex>".
std::string Make(std::string_view prefix, std::string_view part);

// What follows an id's prefix: "X" of "run_X", "turn_X" or "resp_X"; the whole id without one.
std::string_view PartOf(std::string_view id);

// The turn that answers run "run_X" is "turn_X"; the run of a turn "turn_X" is "run_X".
std::string TurnOfRun(std::string_view run_id);
std::string RunOfTurn(std::string_view turn_id);

// "resp_X" of a run's or a turn's id; "msg_X" of a response's id.
std::string ResponseOf(std::string_view run_or_turn_id);
std::string MessageOfResponse(std::string_view response_id);
// The function_call items of a response's output: "fc_<hex>_<n>" of "resp_<hex>" (n from 0); and
// the response one names (none for any other shape).
inline constexpr std::string_view kFunctionCall = "fc_";
std::string FunctionCallOfResponse(std::string_view response_id, std::size_t n);
std::optional<std::string> ResponseOfFunctionCall(std::string_view function_call_id);

// "chatcmpl-<id>" of the run or turn a chat completion answers for.
std::string ChatCompletionOf(std::string_view run_or_turn_id);

// The lower-case hex of "resp_<hex>" (at most 64 digits); none for any other shape, so an id a
// caller sent names no other resource.
std::optional<std::string> ResponseHex(std::string_view response_id);

// A conversation's item (the Conversations API, docs/openai.md): message `seq` of "conv_<hex>" is
// "msg_<hex>_<seq>". ItemPlaceOf reads one back; none for any other shape (a response's message,
// "msg_<hex>", has no seq).
struct ItemPlace {
  std::string conversation_id;
  std::int64_t seq = 0;
};
std::string ItemOf(std::string_view conversation_id, std::int64_t seq);
std::optional<ItemPlace> ItemPlaceOf(std::string_view item_id);

}  // namespace agentgate::ids
