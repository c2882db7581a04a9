#pragma once
// A run's events folded into its row (docs/runs.md, "When a streamed run is written"), once for
// both engines: a run written once, at its end, keeps its events in one column rather than a row
// each. Each event is "<seq>\t<type>\t<length of data>\t<data>\n", so data may hold any byte; an
// event whose data is the run's outcome (its terminal one: the result or the error, kept in their
// own columns) is "<seq>\t<type>\t=\t\n", so the row holds it once, and one whose data is the
// run's start (run.started's, made again from the run's id, conversation and agent, which the row
// has) is "<seq>\t<type>\t@\t\n".

#include "domain/runs/run_events.hpp"
#include "ports/store_records.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace agentgate {

// Packs a run's events one at a time, in order, into its row's log.
class RunEventPacker {
 public:
  // `outcome`: the run's result or error (kept in its row); `started`: its run.started's data
  // (RunStartedData). An event whose data is either is packed as a reference to it. Both are
  // viewed, not copied: they outlive the packer. Room for `size_hint` bytes from the start.
  explicit RunEventPacker(std::string_view outcome = {}, std::string_view started = {},
                          std::size_t size_hint = 0);
  void Add(const RunEvent& event);
  std::string Take() { return std::move(log_); }
  // Room an event takes in the log, at most (a size hint's share).
  static std::size_t RoomFor(const RunEvent& event) {
    return event.type.size() + event.data.size() + 32;
  }

 private:
  std::string_view outcome_;
  std::string_view started_;
  std::string log_;
};

// `run`'s events as its row keeps them: its result or error, and its start, referred to.
std::string FoldRunEvents(const RunRecord& run, const std::vector<RunEvent>& events);

// Those after `after_seq`, at most `limit`; a log cut short or garbled ends where it stops making
// sense (what came before is returned).
std::vector<RunEvent> UnpackRunEvents(std::string_view log, std::int64_t after_seq, int limit,
                                      std::string_view outcome = {}, std::string_view started = {});
// The number of the log's first event; the largest number for a log that does not start with one.
std::int64_t FirstFoldedSeq(std::string_view log);
// A run's run.started data, as its row can make it again.
inline std::string RunStartedData(std::string_view run_id, std::string_view conversation_id,
                                  std::string_view agent_id) {
  return run_events::Started(run_id, conversation_id, agent_id).data;
}
// The outcome a run's row keeps: its result, else its error.
inline std::string_view RunOutcome(const std::string& result, const std::string& error) {
  return result.empty() ? std::string_view(error) : std::string_view(result);
}

}  // namespace agentgate
