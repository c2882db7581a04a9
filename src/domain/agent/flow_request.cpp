#include "domain/agent/flow_request.hpp"

#include "domain/admin/names.hpp"
#include "domain/json_duplicates.hpp"
#include "domain/json_fields.hpp"

#include <boost/json/parse.hpp>

#include <array>
#include <utility>

namespace agentgate {
namespace {

namespace jf = json_fields;
using boost::json::object;

// Daemon field -> flow input, to name the caller's own field in errors.
constexpr std::array<std::pair<const char*, const char*>, 8> kNames{
    {{"message", "message"},
     {"stateful", "stateful"},
     {"conversation_id", "conversationId"},
     {"host_context", "hostContextJson"},
     {"additional_instructions", "additionalInstructions"},
     {"instance_id", "instanceId"},
     {"group_key", "groupKey"},
     {"if_busy", "ifBusy"}}};

Error Renamed(Error error) {
  // The schema's own places keep their path under the flow's input.
  const std::string schema = "'response_format.schema";
  if (const auto at = error.message.find(schema); at != std::string::npos) {
    error.message.replace(at, schema.size(), "'outputSchemaJson");
    return error;
  }
  for (const auto& [daemon, flow] : kNames) {
    const std::string from = std::string("'") + daemon + "'";
    const auto at = error.message.find(from);
    if (at != std::string::npos) {
      error.message.replace(at, from.size(), std::string("'") + flow + "'");
      break;
    }
  }
  return error;
}

// Blank strings mean "not given" in a flow (an unset text variable is empty, not null).
Result<std::optional<std::string>> Text(const object& o, const char* key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<std::string>{};
  if (!v->is_string()) return InvalidField(key, "must be a string or null");
  if (v->get_string().empty()) return std::optional<std::string>{};
  return std::optional<std::string>(std::string(v->get_string()));
}

// A text input holding a JSON object (a Flow has no object type), each key once.
Result<std::optional<boost::json::value>> ObjectText(const object& o, const char* key,
                                                     std::string_view what) {
  AG_TRY(auto text, Text(o, key));
  if (!text) return std::optional<boost::json::value>{};
  boost::system::error_code ec;
  auto parsed = boost::json::parse(*text, ec);
  if (ec || !parsed.is_object())
    return InvalidField(key, "must be a string holding " + std::string(what));
  if (auto duplicate = FirstDuplicateKey(*text))
    return InvalidField(key, "has the key '" + *duplicate + "' twice");
  return std::optional<boost::json::value>(std::move(parsed));
}

}  // namespace

Result<FlowInvokeRequest> ParseFlowInvokeRequest(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(
      *o, "",
      {"agentExternalId", "message", "stateful", "conversationId", "hostContextJson", "groupKey",
       "idempotencyKey", "additionalInstructions", "instanceId", "outputSchemaJson", "ifBusy"}));
  FlowInvokeRequest flow;
  AG_TRY(flow.agent_id, jf::RequiredString(*o, "agentExternalId", ""));
  if (!names::IsValidId(flow.agent_id))
    return InvalidField("agentExternalId", "must be an agent id ([A-Za-z0-9_-]{1,64})");
  AG_TRY(flow.idempotency_key, Text(*o, "idempotencyKey"));

  // Build the Daemon's body, then let its parser apply the one set of rules.
  object daemon;
  if (const auto* m = o->if_contains("message")) daemon["message"] = *m;
  if (const auto* s = o->if_contains("stateful"); s != nullptr && !s->is_null())
    daemon["stateful"] = *s;
  AG_TRY(auto conversation, Text(*o, "conversationId"));
  if (conversation) daemon["conversation_id"] = *conversation;
  AG_TRY(auto host_context, ObjectText(*o, "hostContextJson", "a JSON object"));
  if (host_context) daemon["host_context"] = std::move(*host_context);
  AG_TRY(auto instructions, Text(*o, "additionalInstructions"));
  if (instructions) daemon["additional_instructions"] = *instructions;
  AG_TRY(auto instance, Text(*o, "instanceId"));
  if (instance) daemon["instance_id"] = *instance;
  AG_TRY(auto group, Text(*o, "groupKey"));  // "" is the flow's unset text: no group key
  if (group) daemon["group_key"] = *group;
  AG_TRY(auto if_busy, Text(*o, "ifBusy"));
  if (if_busy) daemon["if_busy"] = *if_busy;
  AG_TRY(auto output_schema, ObjectText(*o, "outputSchemaJson", "a JSON Schema object"));
  if (output_schema)
    daemon["response_format"] =
        object{{"type", "json_schema"}, {"schema", std::move(*output_schema)}};

  auto request = ParseInvokeRequest(daemon);
  if (!request) return Renamed(request.error());
  flow.request = std::move(*request);
  return flow;
}

}  // namespace agentgate
