#include "domain/openai/conversation_objects.hpp"

#include "domain/agent/stored_messages.hpp"
#include "domain/json_fields.hpp"
#include "domain/openai/request_fields.hpp"

namespace agentgate::openai {

namespace jf = json_fields;
using boost::json::array;
using boost::json::object;
using boost::json::value;

Result<std::vector<ItemText>> ReadItems(const value& items, const std::string& at) {
  if (!items.is_array()) return InvalidField(at, "must be an array of messages");
  const array& list = items.get_array();
  if (list.size() > kMaxItemsPerCall)
    return InvalidField(at, "must hold at most " + std::to_string(kMaxItemsPerCall) + " items");
  std::vector<ItemText> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string item_at = at + "[" + std::to_string(i) + "]";
    AG_TRY(const object* item, jf::AsObject(list[i], item_at));
    AG_TRY(const auto type, jf::OptionalString(*item, "type", item_at));
    if (type && (*type == "function_call" || *type == "function_call_output")) {
      // The model's call of a caller's function, or its output, kept as a turn keeps them.
      AG_TRY(const auto read, ReadFunctionItem(*item, *type, item_at));
      if (read.output) {
        out.push_back(
            ItemText{std::string(stored_messages::kFunctionCallOutput),
                     stored_messages::FunctionCallOutputContent(read.call_id, *read.output)});
      } else {
        out.push_back(ItemText{
            std::string(stored_messages::kFunctionCall),
            stored_messages::FunctionCallContent({read.call_id, read.name, read.arguments})});
      }
      continue;
    }
    if (type && *type != "message") {
      return InvalidField(item_at + ".type",
                          "must be message, function_call or function_call_output (the agent's "
                          "own tools run on the server)");
    }
    AG_TRY(std::string role, jf::RequiredString(*item, "role", item_at));
    if (role != "user" && role != "assistant")
      return InvalidField(item_at + ".role", "must be user or assistant");
    const value* content = item->if_contains("content");
    if (content == nullptr || content->is_null())
      return InvalidField(item_at + ".content", "is required");
    AG_TRY(std::string text,
           TextOf(*content, item_at + ".content", {"input_text", "output_text", "text"}));
    out.push_back(ItemText{std::move(role), std::move(text)});
  }
  return out;
}

object ItemObject(const std::string& item_id, const ItemText& item) {
  if (item.role == stored_messages::kFunctionCall) {
    auto call = stored_messages::ReadStoredCall(item.text);
    return object{{"type", "function_call"}, {"id", item_id},     {"status", "completed"},
                  {"call_id", call.call_id}, {"name", call.name}, {"arguments", call.arguments}};
  }
  if (item.role == stored_messages::kFunctionCallOutput) {
    auto result = stored_messages::ReadStoredCall(item.text);
    return object{{"type", "function_call_output"},
                  {"id", item_id},
                  {"status", "completed"},
                  {"call_id", result.call_id},
                  {"output", result.output}};
  }
  const bool assistant = item.role == "assistant";
  object part{{"type", assistant ? "output_text" : "input_text"}, {"text", item.text}};
  if (assistant) part["annotations"] = array{};
  return object{{"type", "message"},
                {"id", item_id},
                {"status", "completed"},
                {"role", item.role},
                {"content", array{std::move(part)}}};
}

object ConversationObject(const std::string& id, std::int64_t created_at_seconds,
                          const object& metadata) {
  return object{{"id", id},
                {"object", "conversation"},
                {"created_at", created_at_seconds},
                {"metadata", metadata}};
}

object DeletedConversation(const std::string& id) {
  return object{{"id", id}, {"object", "conversation.deleted"}, {"deleted", true}};
}

object ItemList(array data, bool has_more) {
  value first = nullptr;
  value last = nullptr;
  if (!data.empty()) {
    first = data.front().as_object().at("id");
    last = data.back().as_object().at("id");
  }
  return object{{"object", "list"},
                {"data", std::move(data)},
                {"first_id", std::move(first)},
                {"last_id", std::move(last)},
                {"has_more", has_more}};
}

}  // namespace agentgate::openai
