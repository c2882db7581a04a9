#include "domain/openai/request_fields.hpp"

#include "domain/admin/names.hpp"
#include "domain/json_fields.hpp"

#include <algorithm>

namespace agentgate::openai {

namespace jf = json_fields;
using boost::json::array;
using boost::json::object;
using boost::json::value;

Result<void> ReadModel(const object& body, std::string& model, std::string& agent_id,
                       std::optional<std::string>& instance_id) {
  AG_TRY(model, jf::RequiredString(body, "model", ""));
  const auto colon = model.find(':');
  agent_id = model.substr(0, colon);
  if (!names::IsValidId(agent_id))
    return InvalidField("model", "must be an agent id, or agent_id:instance_id");
  if (colon != std::string::npos) {
    std::string instance = model.substr(colon + 1);
    if (!names::IsValidInstanceId(instance))
      return InvalidField("model", "the instance after ':' is not an instance id");
    instance_id = std::move(instance);
  }
  return {};
}

Result<std::string> TextOf(const value& content, const std::string& at,
                           std::initializer_list<std::string_view> part_types) {
  if (content.is_string()) return std::string(content.get_string());
  if (!content.is_array()) return InvalidField(at, "must be a string or an array of text parts");
  std::string text;
  const array& parts = content.get_array();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string part_at = at + "[" + std::to_string(i) + "]";
    const object* part = parts[i].if_object();
    const value* type = part != nullptr ? part->if_contains("type") : nullptr;
    const value* part_text = part != nullptr ? part->if_contains("text") : nullptr;
    if (type == nullptr || !type->is_string() ||
        std::find(part_types.begin(), part_types.end(), std::string_view(type->get_string())) ==
            part_types.end())
      return InvalidField(part_at + ".type", "only text parts are accepted");
    if (part_text == nullptr || !part_text->is_string())
      return InvalidField(part_at + ".text", "must be a string");
    if (!text.empty()) text += "\n";
    text.append(part_text->get_string());
  }
  return text;
}

Result<void> ReadMetadata(const object& o, object& metadata) {
  const value* given = o.if_contains("metadata");
  if (given == nullptr || given->is_null()) return {};
  AG_TRY(const object* m, jf::AsObject(*given, "metadata"));
  if (m->size() > 16) return InvalidField("metadata", "must have at most 16 keys");
  for (const auto& kv : *m) {
    const std::string at = "metadata." + std::string(kv.key());
    if (kv.key().size() > 64) return InvalidField(at, "must be a key of at most 64 characters");
    if (!kv.value().is_string() || kv.value().get_string().size() > 512)
      return InvalidField(at, "must be a string of at most 512 characters");
  }
  metadata = *m;
  return {};
}

Result<FunctionItem> ReadFunctionItem(const boost::json::object& item, std::string_view type,
                                      const std::string& at) {
  FunctionItem out;
  AG_TRY(out.call_id, json_fields::RequiredString(item, "call_id", at));
  if (type == "function_call") {
    AG_TRY(out.name, json_fields::RequiredString(item, "name", at));
    AG_TRY(const auto arguments, json_fields::OptionalString(item, "arguments", at));
    out.arguments = arguments.value_or("{}");
    return out;
  }
  const boost::json::value* output = item.if_contains("output");
  if (output == nullptr || output->is_null()) return InvalidField(at + ".output", "is required");
  AG_TRY(out.output, TextOf(*output, at + ".output", {"input_text", "output_text", "text"}));
  return out;
}

}  // namespace agentgate::openai
