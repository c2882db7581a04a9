#include "domain/runs/paused_turn.hpp"

#include "domain/agent/user_question.hpp"
#include "domain/json_fields.hpp"
#include "domain/json_text.hpp"
#include "domain/schema/json_schema.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <set>

namespace agentgate {
namespace {

namespace json = boost::json;
namespace jf = json_fields;

constexpr std::size_t kMaxReason = 1000;

Role RoleOf(std::string_view name) {
  if (name == "assistant") return Role::kAssistant;
  if (name == "tool") return Role::kTool;
  return Role::kUser;
}

json::array CallsJson(const std::vector<ToolCall>& calls) {
  json::array out;
  for (const auto& c : calls)
    out.push_back(json::object{{"id", c.id}, {"name", c.name}, {"arguments", c.arguments_json}});
  return out;
}

json::object UsageJson(const TokenUsage& t) {
  return json::object{{"input_tokens", t.input_tokens},
                      {"output_tokens", t.output_tokens},
                      {"cached_input_tokens", t.cached_input_tokens},
                      {"cache_write_tokens", t.cache_write_tokens}};
}

// Stored by this server's own hand: a field that is not there reads as empty.
const json::value* At(const json::value& v, std::string_view key) {
  return v.is_object() ? v.as_object().if_contains(key) : nullptr;
}
std::string Str(const json::value& v, std::string_view key) {
  const auto* f = At(v, key);
  return f != nullptr && f->is_string() ? std::string(f->get_string()) : std::string();
}
std::int64_t Int(const json::value& v, std::string_view key) {
  const auto* f = At(v, key);
  return f != nullptr && f->is_int64() ? f->get_int64() : 0;
}
double Num(const json::value& v, std::string_view key) {
  const auto* f = At(v, key);
  if (f == nullptr) return 0;
  if (f->is_double()) return f->get_double();
  return f->is_int64() ? static_cast<double>(f->get_int64()) : 0;
}
bool Bool(const json::value& v, std::string_view key) {
  const auto* f = At(v, key);
  return f != nullptr && f->is_bool() && f->get_bool();
}
const json::value& Field(const json::value& v, std::string_view key) {
  static const json::value kNull;
  const auto* f = At(v, key);
  return f != nullptr ? *f : kNull;
}
const json::array& Arr(const json::value& v, std::string_view key) {
  static const json::array kEmpty;
  const auto* f = At(v, key);
  return f != nullptr && f->is_array() ? f->get_array() : kEmpty;
}

std::vector<ToolCall> CallsOf(const json::array& items) {
  std::vector<ToolCall> out;
  for (const auto& c : items)
    out.push_back(ToolCall{Str(c, "id"), Str(c, "name"), Str(c, "arguments")});
  return out;
}

TokenUsage TokensOf(const json::value& v) {
  TokenUsage t;
  t.input_tokens = Int(v, "input_tokens");
  t.output_tokens = Int(v, "output_tokens");
  t.cached_input_tokens = Int(v, "cached_input_tokens");
  t.cache_write_tokens = Int(v, "cache_write_tokens");
  return t;
}

json::value ArgumentsValue(const std::string& arguments) {
  boost::system::error_code ec;
  auto parsed = json::parse(arguments, ec);
  return ec ? json::value(arguments) : parsed;
}

// "answers": [{call_id, answer}], kept raw until the run's questions are read.
Result<void> ReadAnswers(const json::object& body, ApprovalRequest& request) {
  const auto* answers = body.if_contains("answers");
  if (answers == nullptr || answers->is_null()) return {};
  if (!answers->is_array() || answers->get_array().empty())
    return InvalidField("answers", "must be a non-empty array of {call_id, answer}");
  const auto& items = answers->get_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = "answers[" + std::to_string(i) + "]";
    AG_TRY(const json::object* a, jf::AsObject(items[i], at));
    AG_TRYV(jf::RejectUnknownKeys(*a, at, {"call_id", "answer"}));
    AG_TRY(auto call_id, jf::RequiredString(*a, "call_id", at));
    const auto* answer = a->if_contains("answer");
    if (answer == nullptr || answer->is_null()) return InvalidField(at + ".answer", "is required");
    request.answered.emplace_back(std::move(call_id), *answer);
  }
  return {};
}

// An answer to an MCP server's form: an object within the form's schema, sent back as it is. A
// remote A2A agent's question (its schema a string) takes text.
Result<std::string> FormAnswerText(const ToolAsk& ask, const json::value& answer,
                                   const std::string& field) {
  if (ask.answer_schema.is_object() && ask.answer_schema.get_object().contains("type") &&
      ask.answer_schema.at("type") == "string") {
    if (!answer.is_string() || answer.get_string().empty())
      return InvalidField(field, "must be the answer's text");
    return json_text::Write(answer);
  }
  if (!answer.is_object())
    return InvalidField(field, "must be an object: the fields of the MCP server's form");
  if (ask.answer_schema.is_object()) {
    const auto violations = schema::Validate(ask.answer_schema, answer, 1);
    if (!violations.empty()) {
      return InvalidField(field, "does not keep to the MCP server's form: " +
                                     violations.front().path + " " + violations.front().message);
    }
  }
  return json_text::Write(answer);
}

}  // namespace

std::string PausedTurnJson(const PausedTurn& p) {
  const ModelRequest& r = p.request;
  json::array messages;
  for (const auto& m : r.messages) {
    json::object item{{"role", RoleName(m.role)}, {"content", m.content}};
    if (!m.tool_calls.empty()) item["tool_calls"] = CallsJson(m.tool_calls);
    if (!m.tool_call_id.empty()) item["tool_call_id"] = m.tool_call_id;
    if (!m.tool_name.empty()) item["tool_name"] = m.tool_name;
    messages.push_back(std::move(item));
  }
  json::array tools;
  for (const auto& t : r.tools)
    tools.push_back(json::object{
        {"name", t.name}, {"description", t.description}, {"parameters", t.parameters}});
  json::object request{{"model", r.model},
                       {"system", r.system},
                       {"messages", std::move(messages)},
                       {"tools", std::move(tools)},
                       {"max_output_tokens", r.max_output_tokens},
                       {"prompt_caching", r.prompt_caching},
                       {"history_messages", r.history_messages}};
  if (r.temperature) request["temperature"] = *r.temperature;
  if (r.answer_format) {
    json::object format{{"schema", r.answer_format->schema}};
    if (r.answer_format->strict) format["strict"] = *r.answer_format->strict;
    request["answer_format"] = std::move(format);
  }

  const TurnProgress& g = p.progress;
  json::array actions;
  for (const auto& a : g.actions)
    actions.push_back(json::object{{"name", a.name}, {"arguments", a.arguments}});
  json::object counts;
  for (const auto& [key, n] : g.call_counts) counts[key] = n;
  json::object progress{{"model_calls", g.model_calls},    {"reply_text", g.reply_text},
                        {"actions", std::move(actions)},   {"call_counts", std::move(counts)},
                        {"pending", CallsJson(g.pending)}, {"repaired", g.repaired}};

  json::array needs;
  for (const auto& id : p.needs_approval) needs.emplace_back(id);
  json::array questions;
  for (const auto& id : p.needs_answer) questions.emplace_back(id);
  json::array callers;
  for (const auto& name : p.caller_tools) callers.emplace_back(name);
  json::array models;
  for (const auto& m : p.models) {
    json::object item{{"provider", m.provider},
                      {"model", m.model},
                      {"calls", m.calls},
                      {"failed_calls", m.failed_calls},
                      {"tokens", UsageJson(m.tokens)},
                      {"cost_usd", m.cost_usd}};
    models.push_back(std::move(item));
  }
  json::object usage = UsageJson(p.usage);
  usage["cost_usd"] = p.cost_usd;
  usage["model_calls"] = p.model_calls;
  usage["models"] = std::move(models);

  json::object asks;
  for (const auto& [id, ask] : p.asks) {
    asks[id] = json::object{{"key", ask.input_key},
                            {"state", ask.request_state},
                            {"question", ask.question},
                            {"schema", ask.answer_schema}};
  }
  json::array ran;
  for (const auto& kept : p.ran) {
    ran.push_back(
        json::object{{"call_id", kept.call_id}, {"name", kept.name}, {"content", kept.content}});
  }
  json::object out{{"version", 1},
                   {"request", std::move(request)},
                   {"progress", std::move(progress)},
                   {"to_run", CallsJson(p.to_run)},
                   {"needs_approval", std::move(needs)},
                   {"needs_answer", std::move(questions)},
                   {"caller_tools", std::move(callers)},
                   {"recorded_system", p.recorded_system},
                   {"history_sent", p.history_sent},
                   {"usage", std::move(usage)},
                   {"invoke", p.invoke},
                   {"agent_version", p.agent_version}};
  if (!asks.empty()) out["asks"] = std::move(asks);
  if (!ran.empty()) out["ran"] = std::move(ran);
  return json_text::Write(out);
}

Result<PausedTurn> ParsePausedTurn(std::string_view text) {
  boost::system::error_code ec;
  const json::value v = json::parse(text, ec);
  if (ec || !v.is_object() || Int(v, "version") != 1)
    return Error(ErrorCode::kInternal, "a paused run's state could not be read");
  PausedTurn p;
  const json::value& r = Field(v, "request");
  p.request.model = Str(r, "model");
  p.request.system = Str(r, "system");
  for (const auto& m : Arr(r, "messages")) {
    ChatMessage message;
    message.role = RoleOf(Str(m, "role"));
    message.content = Str(m, "content");
    message.tool_calls = CallsOf(Arr(m, "tool_calls"));
    message.tool_call_id = Str(m, "tool_call_id");
    message.tool_name = Str(m, "tool_name");
    p.request.messages.push_back(std::move(message));
  }
  for (const auto& t : Arr(r, "tools")) {
    const auto* parameters = At(t, "parameters");
    p.request.tools.push_back(ToolSpec{Str(t, "name"), Str(t, "description"),
                                       parameters != nullptr ? *parameters : json::value()});
  }
  p.request.max_output_tokens = static_cast<int>(Int(r, "max_output_tokens"));
  p.request.prompt_caching = Bool(r, "prompt_caching");
  p.request.history_messages = static_cast<std::size_t>(Int(r, "history_messages"));
  if (At(r, "temperature") != nullptr) p.request.temperature = Num(r, "temperature");
  if (const auto* format = At(r, "answer_format"); format != nullptr && format->is_object()) {
    AnswerFormat answer;
    if (const auto* schema = At(*format, "schema")) answer.schema = *schema;
    if (const auto* strict = At(*format, "strict")) answer.strict = *strict;
    p.request.answer_format = std::make_shared<const AnswerFormat>(std::move(answer));
  }

  const json::value& g = Field(v, "progress");
  p.progress.model_calls = static_cast<int>(Int(g, "model_calls"));
  p.progress.reply_text = Str(g, "reply_text");
  p.progress.repaired = Bool(g, "repaired");
  for (const auto& a : Arr(g, "actions")) {
    const auto* arguments = At(a, "arguments");
    p.progress.actions.push_back(
        RecordedAction{Str(a, "name"), arguments != nullptr ? *arguments : json::value()});
  }
  if (const auto* counts = At(g, "call_counts"); counts != nullptr && counts->is_object()) {
    for (const auto& [key, n] : counts->get_object())
      p.progress.call_counts[std::string(key)] = n.is_int64() ? static_cast<int>(n.get_int64()) : 0;
  }
  p.progress.pending = CallsOf(Arr(g, "pending"));

  p.to_run = CallsOf(Arr(v, "to_run"));
  for (const auto& id : Arr(v, "needs_approval"))
    if (id.is_string()) p.needs_approval.emplace_back(id.get_string());
  for (const auto& id : Arr(v, "needs_answer"))
    if (id.is_string()) p.needs_answer.emplace_back(id.get_string());
  for (const auto& name : Arr(v, "caller_tools"))
    if (name.is_string()) p.caller_tools.emplace_back(name.get_string());
  p.recorded_system = Str(v, "recorded_system");
  p.history_sent = static_cast<std::size_t>(Int(v, "history_sent"));
  const json::value& usage = Field(v, "usage");
  p.usage = TokensOf(usage);
  p.cost_usd = Num(usage, "cost_usd");
  p.model_calls = static_cast<int>(Int(usage, "model_calls"));
  for (const auto& m : Arr(usage, "models")) {
    const auto* tokens = At(m, "tokens");
    p.models.push_back(
        ModelUsage{Str(m, "provider"), Str(m, "model"), static_cast<int>(Int(m, "calls")),
                   static_cast<int>(Int(m, "failed_calls")),
                   tokens != nullptr ? TokensOf(*tokens) : TokenUsage{}, Num(m, "cost_usd")});
  }
  if (const auto* invoke = At(v, "invoke")) p.invoke = *invoke;
  p.agent_version = static_cast<int>(Int(v, "agent_version"));
  if (const auto* asks = At(v, "asks"); asks != nullptr && asks->is_object()) {
    for (const auto& [id, a] : asks->get_object()) {
      const auto* schema = At(a, "schema");
      p.asks[std::string(id)] = ToolAsk{Str(a, "key"), Str(a, "state"), Str(a, "question"),
                                        schema != nullptr ? *schema : json::value()};
    }
  }
  for (const auto& kept : Arr(v, "ran"))
    p.ran.push_back(ToolResult{Str(kept, "call_id"), Str(kept, "name"), Str(kept, "content")});
  return p;
}

json::array PendingActionsJson(const PausedTurn& paused) {
  auto listed = [](const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  json::array out;
  for (const auto& call : paused.to_run) {
    const bool question = listed(paused.needs_answer, call.id);
    if (!question && !listed(paused.needs_approval, call.id)) continue;
    json::object item{{"call_id", call.id},
                      {"kind", question ? "question" : "approval"},
                      {"tool", call.name},
                      {"arguments", ArgumentsValue(call.arguments_json)}};
    if (auto ask = paused.asks.find(call.id); question && ask != paused.asks.end()) {
      item["question"] = ask->second.question;  // what the tool's MCP server asks
      item["answer_schema"] = ask->second.answer_schema;
    } else if (question) {
      const auto asked = ReadUserQuestion(call.arguments_json);
      item["question"] = asked ? asked->question : std::string();
      item["answer_schema"] =
          asked && asked->answer_schema ? *asked->answer_schema : json::value(nullptr);
    }
    out.push_back(std::move(item));
  }
  return out;
}

bool ApprovalRequest::Approves() const {
  return std::any_of(decisions.begin(), decisions.end(),
                     [](const ApprovalDecision& d) { return !d.answer; });
}

Result<ApprovalRequest> ParseApprovalRequest(const json::value& body) {
  AG_TRY(const json::object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "", {"decisions", "answers", "background"}));
  ApprovalRequest request;
  AG_TRY(auto background, jf::OptionalBool(*o, "background", ""));
  request.background = background.value_or(false);
  AG_TRYV(ReadAnswers(*o, request));
  const auto* decisions = o->if_contains("decisions");
  if (decisions == nullptr && !request.answered.empty()) return request;
  if (decisions == nullptr || !decisions->is_array() || decisions->get_array().empty())
    return InvalidField("decisions",
                        "must be a non-empty array of {call_id, approve, reason?, arguments?}");
  const auto& items = decisions->get_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = "decisions[" + std::to_string(i) + "]";
    AG_TRY(const json::object* d, jf::AsObject(items[i], at));
    AG_TRYV(jf::RejectUnknownKeys(*d, at, {"call_id", "approve", "reason", "arguments"}));
    ApprovalDecision decision;
    decision.at = i;
    AG_TRY(decision.call_id, jf::RequiredString(*d, "call_id", at));
    AG_TRY(auto approve, jf::OptionalBool(*d, "approve", at));
    if (!approve) return InvalidField(at + ".approve", "is required: true or false");
    decision.approve = *approve;
    AG_TRY(auto reason, jf::OptionalString(*d, "reason", at));
    decision.reason = reason.value_or("");
    if (decision.reason.size() > kMaxReason)
      return InvalidField(at + ".reason", "must be at most 1000 characters");
    if (const auto* edited = d->if_contains("arguments"); edited != nullptr && !edited->is_null()) {
      if (!edited->is_object())
        return InvalidField(at + ".arguments", "must be the tool's arguments, a JSON object");
      if (!decision.approve)
        return InvalidField(at + ".arguments", "edits an approval's arguments; a denial has none");
      decision.arguments = json_text::Write(*edited);
    }
    request.decisions.push_back(std::move(decision));
  }
  return request;
}

std::string DecidedRunJson(const DecidedRun& decided) {
  json::array decisions;
  json::array answers;  // checked already: the text the model reads
  for (const auto& d : decided.decisions) {
    if (d.answer) {
      json::object given{{"call_id", d.call_id}, {"text", *d.answer}};
      if (d.declined) given["declined"] = true;
      answers.push_back(std::move(given));
      continue;
    }
    json::object decision{{"call_id", d.call_id}, {"approve", d.approve}};
    if (!d.reason.empty()) decision["reason"] = d.reason;
    if (d.arguments) decision["arguments"] = json::parse(*d.arguments);
    decisions.push_back(std::move(decision));
  }
  json::object decided_json;
  if (!decisions.empty()) decided_json["decisions"] = std::move(decisions);
  const json::object queued{{"decided", std::move(decided_json)},
                            {"answers_given", std::move(answers)},
                            {"after_seq", decided.after_seq}};
  return json_text::Write(queued);
}

Result<DecidedRun> ParseDecidedRun(std::string_view text) {
  boost::system::error_code ec;
  const auto parsed = json::parse(text, ec);
  const auto* o = ec ? nullptr : parsed.if_object();
  const auto* after = o != nullptr ? o->if_contains("after_seq") : nullptr;
  const auto* decided = o != nullptr ? o->if_contains("decided") : nullptr;
  if (after == nullptr || !after->is_int64() || decided == nullptr)
    return Error(ErrorCode::kInternal, "a decided run's queued request is unreadable");
  DecidedRun out{{}, after->as_int64()};
  if (decided->is_object() && decided->as_object().contains("decisions")) {
    AG_TRY(auto request, ParseApprovalRequest(*decided));
    out.decisions = std::move(request.decisions);
  }
  for (const auto& given : Arr(parsed, "answers_given")) {
    ApprovalDecision answer{Str(given, "call_id"), true, "", std::nullopt, Str(given, "text")};
    answer.declined = Bool(given, "declined");
    out.decisions.push_back(std::move(answer));
  }
  if (out.decisions.empty())
    return Error(ErrorCode::kInternal, "a decided run's queued request decides nothing");
  return out;
}

Result<void> CheckDecisions(const ApprovalRequest& request,
                            const std::vector<std::string>& pending) {
  std::set<std::string> decided;
  for (const auto& decision : request.decisions) {
    if (decision.answer) continue;
    const std::string& id = decision.call_id;
    const std::string at = "decisions[" + std::to_string(decision.at) + "].call_id";
    if (std::find(pending.begin(), pending.end(), id) == pending.end())
      return InvalidField(at, "'" + id + "' is not a pending call of this run");
    if (!decided.insert(id).second) return InvalidField(at, "decides '" + id + "' twice");
  }
  for (const auto& id : pending) {
    if (!decided.contains(id))
      return InvalidField("decisions", "must decide every pending call; '" + id + "' is missing");
  }
  return {};
}

Result<void> CheckEditedArguments(const ApprovalRequest& request, const PausedTurn& paused) {
  for (std::size_t i = 0; i < request.decisions.size(); ++i) {
    const ApprovalDecision& d = request.decisions[i];
    if (!d.arguments) continue;
    const std::string at = "decisions[" + std::to_string(i) + "].arguments";
    const auto call = std::find_if(paused.to_run.begin(), paused.to_run.end(),
                                   [&](const ToolCall& c) { return c.id == d.call_id; });
    if (call == paused.to_run.end()) continue;  // CheckDecisions names it
    const auto& tools = paused.request.tools;
    const auto tool = std::find_if(tools.begin(), tools.end(),
                                   [&](const ToolSpec& t) { return t.name == call->name; });
    // A schema the checker cannot read (an MCP server's own) is the tool's to judge.
    if (tool == tools.end() || tool->parameters.is_null() ||
        !schema::CheckSchema(tool->parameters, "parameters"))
      continue;
    const auto violations = schema::Validate(tool->parameters, json::parse(*d.arguments), 1);
    if (!violations.empty()) {
      return InvalidField(at, "do not keep to " + call->name + "'s parameters: " +
                                  violations.front().path + " " + violations.front().message);
    }
  }
  return {};
}

Result<void> CheckAnswers(ApprovalRequest& request, const PausedTurn& paused) {
  std::set<std::string> answered;
  for (std::size_t i = 0; i < request.answered.size(); ++i) {
    const auto& [id, answer] = request.answered[i];
    const std::string at = "answers[" + std::to_string(i) + "]";
    const auto& asked = paused.needs_answer;
    const auto call = std::find_if(paused.to_run.begin(), paused.to_run.end(),
                                   [&](const ToolCall& c) { return c.id == id; });
    if (std::find(asked.begin(), asked.end(), id) == asked.end() || call == paused.to_run.end())
      return InvalidField(at + ".call_id", "'" + id + "' is not a question of this run");
    if (!answered.insert(id).second)
      return InvalidField(at + ".call_id", "answers '" + id + "' twice");
    std::string text;
    if (auto ask = paused.asks.find(id); ask != paused.asks.end()) {
      AG_TRY(text, FormAnswerText(ask->second, answer, at + ".answer"));
    } else {
      AG_TRY(const auto question, ReadUserQuestion(call->arguments_json));
      AG_TRY(text, AnswerText(question, answer, at + ".answer"));
    }
    request.decisions.push_back(ApprovalDecision{id, true, "", std::nullopt, std::move(text), i});
  }
  for (auto& [id, told] : request.declined) {
    const auto& asked = paused.needs_answer;
    if (std::find(asked.begin(), asked.end(), id) == asked.end())
      return InvalidField("answers", "'" + id + "' is not a question of this run");
    if (!answered.insert(id).second) return InvalidField("answers", "answers '" + id + "' twice");
    request.decisions.push_back(ApprovalDecision{id, true, "", std::nullopt, std::move(told),
                                                 request.decisions.size(), true});
  }
  for (const auto& id : paused.needs_answer) {
    if (!answered.contains(id))
      return InvalidField("answers", "must answer every question; '" + id + "' is missing");
  }
  request.answered.clear();
  request.declined.clear();
  return {};
}

std::string EditedResult(const std::string& arguments, const std::string& result) {
  // After the result, so a tool's failure still reads as one ("error: ...").
  return result + "\n\n(An approver changed this call's arguments to " + arguments +
         "; the tool ran with them.)";
}

std::string DeniedResult(const ApprovalDecision& decision) {
  return decision.reason.empty() ? "denied by an operator"
                                 : "denied by an operator: " + decision.reason;
}

}  // namespace agentgate
