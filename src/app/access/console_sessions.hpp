#pragma once
// Operator console sign-ins. The admin token is exchanged once for a random session id that only
// the browser keeps (in an HttpOnly cookie); this server keeps the id's hash, the session's CSRF
// token and its expiry. Sessions end on sign-out, after `idle` without a request, after
// `lifetime` in any case, and the oldest goes when `max_sessions` are open: the map is bounded.

#include "ports/clock.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate {

class ConsoleSessions {
 public:
  struct Limits {
    std::int64_t idle_ms = 30 * 60 * 1000;
    std::int64_t lifetime_ms = 8 * 60 * 60 * 1000;
    std::size_t max_sessions = 256;
  };
  struct Session {
    std::string csrf_token;
    std::int64_t expires_at_ms;  // the sooner of idle expiry and the end of its lifetime
  };
  struct Opened {
    std::string session_id;  // for the cookie; never stored here
    Session session;
  };

  ConsoleSessions(const Clock& clock, Limits limits) : clock_(clock), limits_(limits) {}

  Opened Open();
  // The live session `session_id` names (its idle expiry moves on), or nullopt.
  std::optional<Session> Find(std::string_view session_id);
  // True when a live session was ended.
  bool Close(std::string_view session_id);
  std::size_t OpenCount();
  const Limits& limits() const { return limits_; }

 private:
  struct Entry {
    Session session;
    std::int64_t opened_at_ms;
    std::int64_t last_seen_ms;
  };
  std::int64_t ExpiresAt(const Entry& entry) const;
  void DropExpired(std::int64_t now_ms);

  const Clock& clock_;
  const Limits limits_;
  std::mutex mutex_;
  std::map<std::string, Entry> sessions_;  // by SHA-256 of the session id
};

}  // namespace agentgate
