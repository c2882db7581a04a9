#pragma once
// What of a reply a streaming follower may see while the model still writes it (docs/runs.md,
// "Safety on a stream"). Pure: the turn feeds it each model call's text as it arrives and the
// final verdict, and sends the text.delta / text.retracted events it returns.
//
// The hold-back rule, per model call (2026-12-07, issue 75): text is released only while the
// call's text so far passes the version's safety checks, and only up to where a match could still
// start once more text follows (SafetyChecker::HoldFrom): the start of a trailing run that could
// grow into a card number, or of one that is still a prefix of a secret's form, and a block
// pattern's bound from the end. A version with no checks holds nothing back. A release is one
// event of everything releasable; once a run has sent half its budget of text events, a release
// must add an eighth of what was released before it, so a long reply stays within the budget.
// Once a check blocks, that call releases nothing more. A call that ends with tool calls releases
// the rest of its text if the whole passes; the final reply's rest waits for the turn's verdict.
// A failed call's released text is retracted; a blocked reply retracts everything released.
//
// Pieces may be added (Add) more often than events are wanted: the caller paces Release (one
// text.delta per 20 ms per run on average, domain/runs/event_pace); Piece is Add then Release.

#include "domain/agent/safety.hpp"
#include "domain/runs/run_events.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate {

class ReplyStream {
 public:
  // `text_events`: how many text.delta events the run may send (a share of [runs] max_events).
  explicit ReplyStream(const SafetyChecker& safety, std::size_t text_events = 1000)
      : safety_(safety), text_events_(text_events) {}

  void CallStarted(int call);
  // The model's next piece of the current call.
  void Add(std::string_view piece) { current_.text.append(piece); }
  // A text.delta of what may be shown now, if any.
  std::optional<RunEvent> Release();
  std::optional<RunEvent> Piece(std::string_view piece) {
    Add(piece);
    return Release();
  }
  // The current call ended: `ok` with a reply (`called_tools` when it asked for tools), or failed.
  std::vector<RunEvent> CallEnded(bool ok, bool called_tools);
  // The turn's verdict on its reply: the rest of its text, or text.retracted when it is withheld.
  std::vector<RunEvent> Settled(std::string_view reply_text, bool blocked);

  // Bytes released so far, over every call.
  std::size_t released_bytes() const { return released_total_; }

 private:
  struct CallText {
    int call = 0;
    std::string text;
    std::size_t released = 0;
    bool stopped = false;  // a check blocked: nothing more of it is released
  };
  std::optional<RunEvent> Release(CallText& call, std::size_t end);

  const SafetyChecker& safety_;
  const std::size_t text_events_;
  std::size_t events_ = 0;  // text.delta events released while calls ran
  CallText current_;
  std::optional<CallText> last_reply_;  // the latest successful call that wrote text
  std::size_t released_total_ = 0;
};

}  // namespace agentgate
