#include "domain/a2a/remote_agent.hpp"

#include "domain/json_text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>

#include <cctype>

namespace agentgate::a2a {

namespace json = boost::json;

namespace {

constexpr std::size_t kMaxDescription = 2000;
constexpr std::size_t kMaxSkills = 20;

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Str(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::string Clipped(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  return std::string(text.substr(0, max)) + "...";
}

// The text of a list of parts: text as it is (text parts in a row are one text, as a streamed
// artifact's appended pieces are), data as JSON and a file by its URL, each on a line of its own.
std::string TextOfParts(const json::value* parts) {
  std::string out;
  if (parts == nullptr || !parts->is_array()) return out;
  bool after_text = false;
  for (const auto& part : parts->get_array()) {
    if (!part.is_object()) continue;
    const auto& p = part.get_object();
    std::string piece;
    bool text = false;
    if (const auto* t = p.if_contains("text"); t != nullptr && t->is_string()) {
      piece = std::string(t->get_string());
      text = true;
    } else if (const auto* d = p.if_contains("data")) {
      piece = json_text::Write(*d);
    } else if (const auto* u = p.if_contains("url"); u != nullptr && u->is_string()) {
      piece = "[file: " + std::string(u->get_string()) + "]";
    }
    if (piece.empty()) continue;
    if (!out.empty() && !(text && after_text)) out += "\n";
    out += piece;
    after_text = text;
  }
  return out;
}

std::string StatusText(const json::object& task) {
  const auto* status = task.if_contains("status");
  if (status == nullptr || !status->is_object()) return "";
  const auto* message = status->get_object().if_contains("message");
  if (message == nullptr || !message->is_object()) return "";
  return TextOfParts(message->get_object().if_contains("parts"));
}

std::string ArtifactsText(const json::object& task) {
  std::string out;
  const auto* artifacts = task.if_contains("artifacts");
  if (artifacts == nullptr || !artifacts->is_array()) return out;
  for (const auto& a : artifacts->get_array()) {
    if (!a.is_object()) continue;
    const std::string text = TextOfParts(a.get_object().if_contains("parts"));
    if (text.empty()) continue;
    if (!out.empty()) out += "\n";
    out += text;
  }
  return out;
}

}  // namespace

std::string StateWord(std::string_view state) {
  if (state.starts_with("TASK_STATE_")) state.remove_prefix(11);
  std::string word = Lower(state);
  for (char& c : word) c = c == '_' ? '-' : c;
  return word;
}

std::string OriginOf(std::string_view url) {
  std::string_view scheme;
  std::string_view rest;
  if (Lower(url.substr(0, 8)) == "https://") {
    scheme = "https";
    rest = url.substr(8);
  } else if (Lower(url.substr(0, 7)) == "http://") {
    scheme = "http";
    rest = url.substr(7);
  } else {
    return "";
  }
  std::string authority = Lower(rest.substr(0, rest.find_first_of("/?#")));
  if (authority.empty() || authority.find('@') != std::string::npos) return "";
  const std::string default_port = scheme == "https" ? ":443" : ":80";
  if (authority.ends_with(default_port)) authority.resize(authority.size() - default_port.size());
  return std::string(scheme) + "://" + authority;
}

Result<RemoteCard> ReadRemoteCard(const json::value& card, std::string_view card_url) {
  const json::object* c = card.if_object();
  if (c == nullptr) return Error(ErrorCode::kInvalidRequest, "its card is not a JSON object");
  RemoteCard out;
  out.name = Clipped(Str(*c, "name"), 200);
  out.description = Clipped(Str(*c, "description"), kMaxDescription);
  if (const auto* capabilities = c->if_contains("capabilities");
      capabilities != nullptr && capabilities->is_object()) {
    const auto* streaming = capabilities->get_object().if_contains("streaming");
    out.streaming = streaming != nullptr && streaming->is_bool() && streaming->get_bool();
  }
  if (const auto* skills = c->if_contains("skills"); skills != nullptr && skills->is_array()) {
    std::size_t listed = 0;
    for (const auto& s : skills->get_array()) {
      if (!s.is_object() || listed++ == kMaxSkills) continue;
      out.skills += "- " + Clipped(Str(s.get_object(), "name"), 100) + ": " +
                    Clipped(Str(s.get_object(), "description"), 300) + "\n";
    }
  }
  const std::string origin = OriginOf(card_url);
  std::string elsewhere;
  if (const auto* interfaces = c->if_contains("supportedInterfaces");
      interfaces != nullptr && interfaces->is_array()) {
    for (const auto& i : interfaces->get_array()) {
      if (!i.is_object()) continue;
      const auto& o = i.get_object();
      if (Str(o, "protocolBinding") != "JSONRPC") continue;
      const std::string_view version = Str(o, "protocolVersion");
      if (version != "1.0" && !version.starts_with("1.0.")) continue;
      const std::string_view url = Str(o, "url");
      if (!origin.empty() && OriginOf(url) == origin) {
        out.rpc_url = std::string(url);
        return out;
      }
      if (elsewhere.empty()) elsewhere = std::string(url.substr(0, 200));
    }
  }
  if (!elsewhere.empty()) {
    return Error(ErrorCode::kInvalidRequest, "its card's JSON-RPC 1.0 interface (" + elsewhere +
                                                 ") is not on the card URL's origin (" + origin +
                                                 "), so it is not called");
  }
  return Error(ErrorCode::kInvalidRequest, "its card names no JSON-RPC 1.0 interface");
}

ToolSpec RemoteAgentTool(std::string_view name, const RemoteCard& card) {
  std::string description = "Ask the agent '" +
                            (card.name.empty() ? std::string(name) : card.name) +
                            "' (an A2A agent) something, in plain words; it answers in text.";
  if (!card.description.empty()) description += " " + card.description;
  if (!card.skills.empty()) description += "\nIts skills:\n" + card.skills;
  json::object parameters{
      {"type", "object"},
      {"properties",
       json::object{{"message", json::object{{"type", "string"},
                                             {"description", "What to ask or tell the agent"}}}}},
      {"required", json::array{"message"}},
      {"additionalProperties", false}};
  return ToolSpec{std::string(name), std::move(description), std::move(parameters)};
}

Result<std::string> RemoteMessageText(const std::string& arguments_json) {
  boost::system::error_code ec;
  const auto args = json::parse(arguments_json.empty() ? "{}" : arguments_json, ec);
  const auto* o = ec ? nullptr : args.if_object();
  const auto* message = o != nullptr ? o->if_contains("message") : nullptr;
  if (message == nullptr || !message->is_string() || message->get_string().empty())
    return InvalidField("message", "must be the text to send the agent");
  return std::string(message->get_string());
}

json::object RemoteSendParams(std::string_view message_id, std::string_view text,
                              std::string_view task_id, std::string_view context_id) {
  json::object message{{"messageId", message_id},
                       {"role", "ROLE_USER"},
                       {"parts", json::array{json::object{{"text", text}}}}};
  if (!task_id.empty()) message["taskId"] = task_id;
  if (!context_id.empty()) message["contextId"] = context_id;
  return json::object{{"message", std::move(message)},
                      {"configuration", json::object{{"returnImmediately", false}}}};
}

RemoteAnswer ReadRemoteResult(const json::value& result, std::size_t max_chars) {
  const json::object* r = result.if_object();
  const json::value* task = r != nullptr ? r->if_contains("task") : nullptr;
  // 0.3 answers the task or message itself, with its `kind`.
  if (r != nullptr && task == nullptr && Str(*r, "kind") == "task") task = &result;
  if (task == nullptr || !task->is_object()) {
    const json::value* message = r != nullptr ? r->if_contains("message") : nullptr;
    if (r != nullptr && message == nullptr && Str(*r, "kind") == "message") message = &result;
    if (message == nullptr || !message->is_object())
      return {"error: the agent's answer is neither a task nor a message"};
    return {Clipped(TextOfParts(message->get_object().if_contains("parts")), max_chars)};
  }
  const auto& t = task->get_object();
  const auto* status = t.if_contains("status");
  const std::string state = status != nullptr && status->is_object()
                                ? StateWord(Str(status->get_object(), "state"))
                                : std::string("unknown");
  if (state == "completed") {
    std::string text = ArtifactsText(t);
    if (text.empty()) text = StatusText(t);
    return {
        Clipped(text.empty() ? "(the agent completed its task with no text)" : text, max_chars)};
  }
  if (state == "input-required") {
    const std::string asked = StatusText(t);
    return {"", RemoteQuestion{std::string(Str(t, "id")), std::string(Str(t, "contextId")),
                               asked.empty() ? "The agent needs more input." : asked}};
  }
  const std::string said = StatusText(t);
  return {Clipped("error: the agent's task is " + state + (said.empty() ? "" : ": " + said),
                  max_chars)};
}

std::string RemoteAskState(const RemoteQuestion& question) {
  json_text::ObjectWriter state;
  state.String("task_id", question.task_id);
  state.String("context_id", question.context_id);
  return state.Finish();
}

std::optional<RemoteQuestion> ReadRemoteAskState(std::string_view state) {
  boost::system::error_code ec;
  const auto parsed = json::parse(state, ec);
  const auto* o = ec ? nullptr : parsed.if_object();
  if (o == nullptr || Str(*o, "task_id").empty()) return std::nullopt;
  return RemoteQuestion{std::string(Str(*o, "task_id")), std::string(Str(*o, "context_id")), ""};
}

}  // namespace agentgate::a2a
