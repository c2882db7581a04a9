#include "domain/openai/caller_tools.hpp"

#include "domain/json_fields.hpp"
#include "domain/schema/json_schema.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace agentgate::openai {
namespace {

namespace jf = json_fields;
using boost::json::object;
using boost::json::value;

bool NamedWell(std::string_view n) {
  return !n.empty() && n.size() <= 64 && std::all_of(n.begin(), n.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
  });
}

// Where a tool's own fields are: chat nests them under "function".
std::string FieldsAt(std::size_t i, ToolShape shape) {
  const std::string at = "tools[" + std::to_string(i) + "]";
  return shape == ToolShape::kChat ? at + ".function" : at;
}

Result<ToolSpec> ReadTool(const value& item, std::size_t i, ToolShape shape) {
  const std::string at = "tools[" + std::to_string(i) + "]";
  AG_TRY(const object* tool, jf::AsObject(item, at));
  AG_TRY(const auto type, jf::RequiredString(*tool, "type", at));
  if (type != "function") {
    return InvalidField(
        jf::Join(at, "type"),
        "must be \"function\": the agent's own tools (its version's config) are the "
        "only others");
  }
  const object* fields = tool;
  if (shape == ToolShape::kChat) {
    const value* function = tool->if_contains("function");
    if (function == nullptr) return InvalidField(jf::Join(at, "function"), "is required");
    AG_TRY(fields, jf::AsObject(*function, jf::Join(at, "function")));
  }
  const std::string fat = FieldsAt(i, shape);
  ToolSpec spec;
  AG_TRY(spec.name, jf::RequiredString(*fields, "name", fat));
  if (!NamedWell(spec.name))
    return InvalidField(jf::Join(fat, "name"), "must match [A-Za-z0-9_-]{1,64}");
  AG_TRY(const auto description, jf::OptionalString(*fields, "description", fat));
  spec.description = description.value_or("");
  AG_TRYV(jf::OptionalBool(*fields, "strict", fat));  // checked; the model is asked as it is
  const value* parameters = fields->if_contains("parameters");
  if (parameters == nullptr || parameters->is_null()) {
    spec.parameters = object{{"type", "object"}, {"properties", object{}}};
  } else {
    AG_TRY(spec.parameters, schema::ReadAnswerSchema(*parameters, jf::Join(fat, "parameters")));
  }
  return spec;
}

// "auto" (the default), "none", "required", or one function by name.
Result<void> ReadToolChoice(const object& body, ToolShape shape, InvokeRequest& request,
                            bool& offered) {
  const value* choice = body.if_contains("tool_choice");
  offered = true;
  if (choice == nullptr || choice->is_null()) return {};
  if (choice->is_string()) {
    const auto& mode = choice->get_string();
    if (mode == "auto") return {};
    if (mode == "none") {
      offered = false;
      return {};
    }
    if (mode == "required") {
      request.required_tool = "";
      return {};
    }
    return InvalidField("tool_choice",
                        "must be \"auto\", \"none\", \"required\" or one function by name");
  }
  AG_TRY(const object* named, jf::AsObject(*choice, "tool_choice"));
  AG_TRY(const auto type, jf::RequiredString(*named, "type", "tool_choice"));
  if (type != "function")
    return InvalidField("tool_choice.type", "must be \"function\" (a tool of `tools`)");
  std::string name;
  if (shape == ToolShape::kChat) {
    const value* function = named->if_contains("function");
    if (function == nullptr) return InvalidField("tool_choice.function", "is required");
    AG_TRY(const object* f, jf::AsObject(*function, "tool_choice.function"));
    AG_TRY(name, jf::RequiredString(*f, "name", "tool_choice.function"));
  } else {
    AG_TRY(name, jf::RequiredString(*named, "name", "tool_choice"));
  }
  const auto& tools = request.caller_tools;
  if (std::none_of(tools.begin(), tools.end(), [&](const ToolSpec& t) { return t.name == name; })) {
    return InvalidField(
        shape == ToolShape::kChat ? "tool_choice.function.name" : "tool_choice.name",
        "names no function of `tools`");
  }
  request.required_tool = std::move(name);
  return {};
}

}  // namespace

Result<void> ReadCallerTools(const object& body, ToolShape shape, InvokeRequest& request) {
  const value* tools = body.if_contains("tools");
  if (tools != nullptr && !tools->is_null()) {
    if (!tools->is_array()) return InvalidField("tools", "must be an array of function tools");
    const auto& items = tools->get_array();
    if (items.size() > kMaxCallerTools)
      return InvalidField("tools", "holds at most " + std::to_string(kMaxCallerTools) + " tools");
    std::set<std::string> names;
    for (std::size_t i = 0; i < items.size(); ++i) {
      AG_TRY(auto spec, ReadTool(items[i], i, shape));
      if (!names.insert(spec.name).second)
        return InvalidField(jf::Join(FieldsAt(i, shape), "name"), "names a tool twice");
      request.caller_tools.push_back(std::move(spec));
      request.caller_tools_flat = shape == ToolShape::kResponses;
    }
  }
  bool offered = true;
  AG_TRYV(ReadToolChoice(body, shape, request, offered));
  if (!offered) request.caller_tools.clear();
  return {};
}

Result<void> CheckNoCollision(const std::vector<ToolSpec>& caller_tools,
                              const std::vector<ToolSpec>& offered, ToolShape shape) {
  for (std::size_t i = 0; i < caller_tools.size(); ++i) {
    const auto& name = caller_tools[i].name;
    if (std::any_of(offered.begin(), offered.end(),
                    [&](const ToolSpec& t) { return t.name == name; })) {
      return InvalidField(jf::Join(FieldsAt(i, shape), "name"),
                          "is already the name of one of the agent's tools; rename the function");
    }
  }
  return {};
}

}  // namespace agentgate::openai
