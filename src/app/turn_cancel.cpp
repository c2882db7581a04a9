#include "app/turn_cancel.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>

namespace agentgate {

namespace asio = boost::asio;

struct TurnCancel::Impl {
  explicit Impl(asio::any_io_executor executor) : channel(std::move(executor), 1) {}
  asio::experimental::concurrent_channel<void(boost::system::error_code)> channel;
  std::atomic<bool> canceled{false};
};

TurnCancel::TurnCancel(asio::any_io_executor executor)
    : impl_(std::make_unique<Impl>(std::move(executor))) {}

TurnCancel::~TurnCancel() = default;

void TurnCancel::Cancel() {
  if (!impl_->canceled.exchange(true)) impl_->channel.try_send(boost::system::error_code{});
}

bool TurnCancel::canceled() const {
  return impl_->canceled.load();
}

asio::awaitable<void> TurnCancel::Canceled() {
  // An error code, not an exception, when the turn ends first and this wait is canceled.
  co_await impl_->channel.async_receive(asio::as_tuple(asio::use_awaitable));
}

}  // namespace agentgate
