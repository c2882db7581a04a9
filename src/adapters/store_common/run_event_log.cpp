#include "adapters/store_common/run_event_log.hpp"

#include "adapters/store_common/tab_fields.hpp"

#include <limits>

namespace agentgate {

RunEventPacker::RunEventPacker(std::string_view outcome, std::string_view started,
                               std::size_t size_hint)
    : outcome_(outcome), started_(started) {
  log_.reserve(size_hint);
}

void RunEventPacker::Add(const RunEvent& e) {
  tab_fields::AppendInteger(log_, e.seq);
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
  tab_fields::AppendInteger(log_, e.data.size());
  log_ += '\t';
  log_ += e.data;
  log_ += '\n';
}

std::string FoldRunEvents(const RunRecord& run, const std::vector<RunEvent>& events) {
  const std::string started = RunStartedData(run.id, run.conversation_id, run.agent_id);
  std::size_t size = 0;
  for (const auto& e : events) size += RunEventPacker::RoomFor(e);
  RunEventPacker packer(RunOutcome(run.result_json, run.error_json), started, size);
  for (const auto& e : events) packer.Add(e);
  return packer.Take();
}

using tab_fields::Integer;
using tab_fields::Next;

std::vector<RunEvent> UnpackRunEvents(std::string_view log, std::int64_t after_seq, int limit,
                                      std::string_view outcome, std::string_view started) {
  std::vector<RunEvent> events;
  std::string_view rest = log;
  while (!rest.empty() && static_cast<int>(events.size()) < limit) {
    std::string_view seq_text, type, length_text;
    std::int64_t seq = 0;
    if (!Next(rest, seq_text) || !Next(rest, type) || !Next(rest, length_text) ||
        !Integer(seq_text, seq))
      break;
    std::string_view data;
    if (length_text == "=" || length_text == "@") {  // the run's outcome, or its start
      data = length_text == "=" ? outcome : started;
      if (rest.empty() || rest[0] != '\n' || (length_text == "@" && started.empty())) break;
      rest.remove_prefix(1);
    } else {
      std::size_t length = 0;
      if (!Integer(length_text, length) || rest.size() < length + 1 || rest[length] != '\n') break;
      data = rest.substr(0, length);
      rest.remove_prefix(length + 1);
    }
    if (seq > after_seq) events.push_back(RunEvent{seq, std::string(type), std::string(data)});
  }
  return events;
}

std::int64_t FirstFoldedSeq(std::string_view log) {
  std::string_view seq_text;
  std::int64_t seq = 0;
  if (!Next(log, seq_text) || !Integer(seq_text, seq))
    return std::numeric_limits<std::int64_t>::max();
  return seq;
}

}  // namespace agentgate
