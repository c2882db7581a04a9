#include "runtime/turn_cancel.hpp"

#include <boost/asio/post.hpp>

#include <mutex>

namespace agentgate {

namespace asio = boost::asio;

struct TurnCancel::Impl {
  explicit Impl(asio::any_io_executor e) : executor(std::move(e)) {}
  asio::any_io_executor executor;
  std::mutex mutex;
  bool canceled = false;
  std::function<void()> on_cancel;
};

TurnCancel::TurnCancel(asio::any_io_executor executor)
    : impl_(std::make_unique<Impl>(std::move(executor))) {}

TurnCancel::~TurnCancel() = default;

void TurnCancel::Cancel() {
  std::function<void()> callback;
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->canceled) return;
    impl_->canceled = true;
    callback = std::move(impl_->on_cancel);
  }
  if (callback) asio::post(impl_->executor, std::move(callback));
}

void TurnCancel::OnCancel(std::function<void()> callback) {
  {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->canceled) {
      impl_->on_cancel = std::move(callback);
      return;
    }
  }
  asio::post(impl_->executor, std::move(callback));
}

}  // namespace agentgate
