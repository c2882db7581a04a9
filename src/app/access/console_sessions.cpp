#include "app/access/console_sessions.hpp"

#include "crypto/crypto.hpp"

#include <algorithm>

namespace agentgate {

std::int64_t ConsoleSessions::ExpiresAt(const Entry& entry) const {
  return std::min(entry.last_seen_ms + limits_.idle_ms, entry.opened_at_ms + limits_.lifetime_ms);
}

void ConsoleSessions::DropExpired(std::int64_t now_ms) {
  std::erase_if(sessions_, [&](const auto& item) { return ExpiresAt(item.second) <= now_ms; });
}

ConsoleSessions::Opened ConsoleSessions::Open() {
  const std::int64_t now = clock_.NowMs();
  Opened opened{crypto::RandomBase64Url(32), Session{crypto::RandomBase64Url(32), 0}};
  Entry entry{opened.session, now, now};
  entry.session.expires_at_ms = ExpiresAt(entry);
  opened.session.expires_at_ms = entry.session.expires_at_ms;
  std::lock_guard lock(mutex_);
  DropExpired(now);
  while (!sessions_.empty() && sessions_.size() >= limits_.max_sessions) {
    auto oldest = std::min_element(sessions_.begin(), sessions_.end(), [](auto& a, auto& b) {
      return a.second.opened_at_ms < b.second.opened_at_ms;
    });
    sessions_.erase(oldest);
  }
  sessions_.emplace(crypto::Sha256(opened.session_id), std::move(entry));
  return opened;
}

std::optional<ConsoleSessions::Session> ConsoleSessions::Find(std::string_view session_id) {
  const std::int64_t now = clock_.NowMs();
  // Looked up by hash: a map's comparisons then say nothing about the id a caller sent.
  const std::string key = crypto::Sha256(session_id);
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return std::nullopt;
  if (ExpiresAt(it->second) <= now) {
    sessions_.erase(it);
    return std::nullopt;
  }
  it->second.last_seen_ms = now;
  it->second.session.expires_at_ms = ExpiresAt(it->second);
  return it->second.session;
}

bool ConsoleSessions::Close(std::string_view session_id) {
  const std::string key = crypto::Sha256(session_id);
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return false;
  const bool live = ExpiresAt(it->second) > clock_.NowMs();
  sessions_.erase(it);
  return live;
}

std::size_t ConsoleSessions::OpenCount() {
  std::lock_guard lock(mutex_);
  DropExpired(clock_.NowMs());
  return sessions_.size();
}

}  // namespace agentgate
