#pragma once
// What OpenAI's chat and Responses requests share (docs/openai.md): `model` naming the agent (and
// its instance after a ':'), and a message's text as a string or as text parts. Errors are 400s
// naming OpenAI's own field.

#include "domain/error.hpp"

#include <boost/json/value.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate::openai {

// `model` as sent (the answer names it), its agent (up to a ':') and its instance (after it).
Result<void> ReadModel(const boost::json::object& body, std::string& model, std::string& agent_id,
                       std::optional<std::string>& instance_id);

// A string, or parts of the given types ({type, text}), joined by new lines; `at` names it.
Result<std::string> TextOf(const boost::json::value& content, const std::string& at,
                           std::initializer_list<std::string_view> part_types);

// A `function_call` item ({call_id, name, arguments}) or a `function_call_output` one ({call_id,
// output: a string or text parts}), as the Responses and Conversations APIs take them; `at` names
// it.
struct FunctionItem {
  std::string call_id;
  std::string name;                   // function_call
  std::string arguments;              // function_call ("{}" when absent)
  std::optional<std::string> output;  // function_call_output
};
Result<FunctionItem> ReadFunctionItem(const boost::json::object& item, std::string_view type,
                                      const std::string& at);

// `metadata` (when sent and not null): at most 16 keys of at most 64 characters, each a string of
// at most 512, as OpenAI takes it.
Result<void> ReadMetadata(const boost::json::object& body, boost::json::object& metadata);

}  // namespace agentgate::openai
