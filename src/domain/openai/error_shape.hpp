#pragma once
// OpenAI's error shape for the compatible API (docs/openai.md): {"error": {message, type, code,
// param}} with agentgate's status and code, `type` by status (an SDK picks its error class by the
// status alone), `param` the request field at fault in OpenAI's names.

#include "domain/error.hpp"

#include <boost/json/object.hpp>

#include <string_view>

namespace agentgate::openai {

std::string_view ErrorTypeOf(int status);
// Which API's request names the field at fault: the invoke's own fields have each API's names.
enum class Surface { kChatCompletions, kResponses };

// The error object (the value of "error"), the error's details (a 402's scope, limit...) in it.
boost::json::object ErrorObject(const Error& error, Surface surface = Surface::kChatCompletions);
// Whether an OpenAI SDK must not retry the answer on its own (x-should-retry: false): a spend
// limit, a key whose call is running and the turn cap, each of which a retry would pay for again.
bool NotToBeRetried(int status);

}  // namespace agentgate::openai
