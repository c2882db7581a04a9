#include "domain/runs/run_event_log.hpp"

#include <charconv>

namespace agentgate {

RunEventPacker::RunEventPacker(std::string_view outcome, std::string_view started,
                               std::size_t size_hint)
    : outcome_(outcome), started_(started) {
  log_.reserve(size_hint);
}

void RunEventPacker::Add(const RunEvent& e) {
  char digits[24];
  log_.append(digits, std::to_chars(digits, digits + sizeof digits, e.seq).ptr);
  log_ += '\t';
  log_ += e.type;
  if (!outcome_.empty() && e.data == outcome_) {
    log_ += "\t=\t\n";
    return;
  }
  if (!started_.empty() && e.data == started_) {
    log_ += "\t@\t\n";
    return;
  }
  log_ += '\t';
  log_.append(digits, std::to_chars(digits, digits + sizeof digits, e.data.size()).ptr);
  log_ += '\t';
  log_ += e.data;
  log_ += '\n';
}

namespace {

// The field up to the next tab, moving `rest` past it; false when there is no tab.
bool Field(std::string_view& rest, std::string_view& field) {
  const auto tab = rest.find('\t');
  if (tab == std::string_view::npos) return false;
  field = rest.substr(0, tab);
  rest.remove_prefix(tab + 1);
  return true;
}

template <class Value>
bool Number(std::string_view text, Value& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

std::string PackQuickRun(const QuickRun& run) {
  std::string log;
  log.reserve(run.provider.size() + run.model.size() + run.response.size() + 64);
  log += '~';
  log += run.provider;
  log += '\t';
  log += run.model;
  char digits[32];
  for (const std::int64_t tokens : {run.input_tokens, run.output_tokens}) {
    log += '\t';
    log.append(digits, std::to_chars(digits, digits + sizeof digits, tokens).ptr);
  }
  log += '\t';
  // The shortest text that reads back as the same double.
  log.append(digits, std::to_chars(digits, digits + sizeof digits, run.cost_usd).ptr);
  log += '\t';
  log += run.response;
  return log;
}

std::optional<QuickRun> UnpackQuickRun(std::string_view log) {
  if (!IsQuickRunLog(log)) return std::nullopt;
  log.remove_prefix(1);
  std::string_view provider, model, input, output, cost;
  QuickRun run;
  if (!Field(log, provider) || !Field(log, model) || !Field(log, input) || !Field(log, output) ||
      !Field(log, cost) || !Number(input, run.input_tokens) || !Number(output, run.output_tokens) ||
      !Number(cost, run.cost_usd))
    return std::nullopt;
  run.provider = std::string(provider);
  run.model = std::string(model);
  run.response = std::string(log);
  return run;
}

std::optional<std::string> QuickRunResultText(std::string_view log) {
  const auto quick = UnpackQuickRun(log);
  if (!quick) return std::nullopt;
  return InvokeBodyText(QuickRunResult(*quick));
}

namespace {

// A quick run's events after `after_seq`, at most `limit`: its start, its facts' events, its end.
std::vector<RunEvent> QuickRunEventsAfter(const QuickRun& run, std::int64_t after_seq, int limit,
                                          std::string_view outcome, std::string_view started) {
  std::vector<RunEvent> events;
  if (started.empty()) return events;
  const auto keep = [&](RunEvent event) {
    if (event.seq > after_seq && static_cast<int>(events.size()) < limit)
      events.push_back(std::move(event));
  };
  keep(RunEvent{1, "run.started", std::string(started)});
  for (auto& event : QuickRunEvents(run)) keep(std::move(event));
  RunEvent end = run_events::Completed(outcome.empty() ? InvokeBodyText(QuickRunResult(run))
                                                       : std::string(outcome));
  end.seq = 5;
  keep(std::move(end));
  return events;
}

}  // namespace

std::vector<RunEvent> UnpackRunEvents(std::string_view log, std::int64_t after_seq, int limit,
                                      std::string_view outcome, std::string_view started) {
  if (IsQuickRunLog(log)) {
    const auto quick = UnpackQuickRun(log);
    if (!quick) return {};
    return QuickRunEventsAfter(*quick, after_seq, limit, outcome, started);
  }
  std::vector<RunEvent> events;
  std::string_view rest = log;
  while (!rest.empty() && static_cast<int>(events.size()) < limit) {
    std::string_view seq_text, type, length_text;
    std::int64_t seq = 0;
    if (!Field(rest, seq_text) || !Field(rest, type) || !Field(rest, length_text) ||
        !Number(seq_text, seq))
      break;
    std::string_view data;
    if (length_text == "=" || length_text == "@") {  // the run's outcome, or its start
      data = length_text == "=" ? outcome : started;
      if (rest.empty() || rest[0] != '\n' || (length_text == "@" && started.empty())) break;
      rest.remove_prefix(1);
    } else {
      std::size_t length = 0;
      if (!Number(length_text, length) || rest.size() < length + 1 || rest[length] != '\n') break;
      data = rest.substr(0, length);
      rest.remove_prefix(length + 1);
    }
    if (seq > after_seq) events.push_back(RunEvent{seq, std::string(type), std::string(data)});
  }
  return events;
}

}  // namespace agentgate
