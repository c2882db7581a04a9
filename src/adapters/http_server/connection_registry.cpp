#include "adapters/http_server/connection_registry.hpp"

#include <boost/asio/post.hpp>

namespace agentgate::http {

std::uint64_t ConnectionRegistry::Add(const std::shared_ptr<Connection>& connection) {
  std::lock_guard lock(mutex_);
  const std::uint64_t id = next_id_++;
  connections_.emplace(id, connection);
  return id;
}

void ConnectionRegistry::Remove(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  connections_.erase(id);
}

std::size_t ConnectionRegistry::Size() const {
  std::lock_guard lock(mutex_);
  return connections_.size();
}

void ConnectionRegistry::CloseIdle(std::int64_t began) {
  std::lock_guard lock(mutex_);
  for (auto& [id, weak] : connections_) {
    if (auto c = weak.lock()) {
      boost::asio::post(c->stream.get_executor(), [weak = weak, began] {
        auto conn = weak.lock();
        if (conn && !conn->busy && conn->idle_since < began) conn->stream.cancel();
      });
    }
  }
}

void ConnectionRegistry::ReclaimIdle(std::int64_t idle_before, std::size_t most,
                                     std::function<void()> closed) {
  const auto reclaimable = [idle_before](const Connection& c) {
    const auto since = c.idle_since.load();
    return since != 0 && since <= idle_before;
  };
  std::size_t asked = 0;
  std::lock_guard lock(mutex_);
  for (auto& [id, weak] : connections_) {
    if (asked == most) break;
    auto c = weak.lock();
    if (!c || !reclaimable(*c)) continue;
    ++asked;
    boost::asio::post(c->stream.get_executor(), [weak = weak, reclaimable, closed] {
      auto conn = weak.lock();
      if (!conn || !reclaimable(*conn)) return;
      conn->idle_since = 0;
      closed();
      conn->stream.cancel();
    });
  }
}

}  // namespace agentgate::http
