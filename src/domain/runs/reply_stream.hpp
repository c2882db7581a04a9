#pragma once
// What of a reply a streaming follower may see while the model still writes it (docs/runs.md,
// "Safety on a stream"). Pure: the turn feeds it each model call's text as it arrives and the
// final verdict, and sends the text.delta / text.retracted events it returns.
//
// The hold-back rule, per model call: text is released only while the call's text so far passes
// the version's safety checks, and only up to a point that
//   1. lies at least kHoldBack bytes before the end of the text so far (a card number with its
//      separators, a PEM header, a block-pattern match up to that long is never cut by a release),
//   2. follows a whitespace character (a key or token of any length, which holds none, is never
//      cut), and
//   3. releases at least kMinRelease bytes at once (a long reply stays a few hundred events).
// Once a check blocks, that call releases nothing more. A call that ends with tool calls releases
// the rest of its text if the whole passes; the final reply's rest waits for the turn's verdict.
// A failed call's released text is retracted; a blocked reply retracts everything released.

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
  static constexpr std::size_t kHoldBack = 64;
  static constexpr std::size_t kMinRelease = 32;

  explicit ReplyStream(const SafetyChecker& safety) : safety_(safety) {}

  void CallStarted(int call);
  // The model's next piece of the current call: a text.delta to send now, if any.
  std::optional<RunEvent> Piece(std::string_view piece);
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
  CallText current_;
  std::optional<CallText> last_reply_;  // the latest successful call that wrote text
  std::size_t released_total_ = 0;
};

}  // namespace agentgate
