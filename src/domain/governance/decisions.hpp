#pragma once
// What the store's one-transaction decisions decide, written once for every engine: an engine
// reads the rows, asks these functions, and writes what they say (adapters/store_*).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate {

// What a claim on an idempotency key found.
struct IdempotencyClaim {
  enum class Outcome {
    kClaimed,              // new (or stale and taken over): run the turn
    kInUse,                // same key still running: 409
    kFingerprintMismatch,  // same key, different request: 422
    kCompleted,            // finished: replay status and body
  };
  Outcome outcome = Outcome::kClaimed;
  int status = 0;
  std::string body;
};

// The verdict of a conversation's call window.
struct CallWindowDecision {
  bool allowed = true;
  int retry_after_seconds = 0;  // when refused: until the oldest call leaves the window
};

namespace governance {

// An Idempotency-Key's row as a new claim reads it.
struct StoredKey {
  std::string fingerprint;
  bool completed = false;
  int status = 0;  // completed: the answer replayed
  std::string body;
  std::int64_t claimed_at_ms = 0;  // running: when the claim was taken
  std::int64_t expires_at_ms = 0;  // completed: replayed until then
};

// A claim with `fingerprint` at `now_ms` on a key stored as `stored` (none: never used). kClaimed
// means the caller writes its claim over whatever is there: a completed answer past its replay
// time, or a running claim older than `stale_after_ms` (its server died), is taken over.
IdempotencyClaim JudgeIdempotencyClaim(const std::optional<StoredKey>& stored,
                                       std::string_view fingerprint, std::int64_t now_ms,
                                       std::int64_t stale_after_ms);

// Calls at or before this instant have left a window of `window_ms` ending at `now_ms`; a store
// deletes them whatever the verdict, so a refused conversation keeps no stale rows.
inline std::int64_t WindowCutoff(std::int64_t now_ms, std::int64_t window_ms) {
  return now_ms - window_ms;
}

// A new call's verdict, from the calls still in the window (their count and the oldest's time):
// refused while `limit` are, until the oldest leaves.
CallWindowDecision JudgeCallWindow(std::int64_t calls_in_window, std::int64_t oldest_call_ms,
                                   std::int64_t window_ms, int limit, std::int64_t now_ms);

}  // namespace governance
}  // namespace agentgate
