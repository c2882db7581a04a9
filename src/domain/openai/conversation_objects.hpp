#pragma once
// The Conversations API's objects (docs/openai.md, "Conversations"): a conversation, its items
// (the conversation's messages, each "msg_<hex>_<seq>": domain/resource_ids), the items a caller
// adds, and a page of them. Errors are 400s naming OpenAI's field.

#include "domain/error.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace agentgate::openai {

// A message as the conversation keeps it: "user" or "assistant", and its text.
struct ItemText {
  std::string role;
  std::string text;
};

// At most this many items are added by one call, as OpenAI takes them.
inline constexpr std::size_t kMaxItemsPerCall = 20;

// `items` as sent: messages ({role, content} or {type: "message", ...}) of the user or the
// assistant, their content a string or text parts; `at` names the field ("items").
Result<std::vector<ItemText>> ReadItems(const boost::json::value& items, const std::string& at);

boost::json::object ItemObject(const std::string& item_id, const ItemText& item);
boost::json::object ConversationObject(const std::string& id, std::int64_t created_at_seconds,
                                       const boost::json::object& metadata);
boost::json::object DeletedConversation(const std::string& id);
// A page of items as OpenAI lists them: first_id and last_id of `data`, and whether more follow.
boost::json::object ItemList(boost::json::array data, bool has_more);

}  // namespace agentgate::openai
