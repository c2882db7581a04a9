#include "runtime/turn_cancel.hpp"

#include <boost/asio/post.hpp>

#include <mutex>

namespace agentgate {

namespace asio = boost::asio;

void TurnCancel::Cancel() {
  std::function<void()> callback;
  {
    std::lock_guard lock(mutex_);
    if (canceled_) return;
    canceled_ = true;
    callback = std::move(on_cancel_);
  }
  if (callback) asio::post(executor_, std::move(callback));
}

void TurnCancel::OnCancel(std::function<void()> callback) {
  {
    std::lock_guard lock(mutex_);
    if (!canceled_) {
      on_cancel_ = std::move(callback);
      return;
    }
  }
  asio::post(executor_, std::move(callback));
}

}  // namespace agentgate
