#include "adapters/http_client/await_readable.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>

namespace agentgate::upstream {

namespace asio = boost::asio;

SocketDeadline::SocketDeadline(asio::ip::tcp::socket& socket,
                               std::chrono::steady_clock::time_point deadline)
    : watch_(std::make_shared<Watch>()), timer_(socket.get_executor(), deadline) {
  timer_.async_wait([&socket, watch = watch_](const boost::system::error_code& ec) {
    if (ec || watch->over) return;
    watch->expired = true;
    socket.cancel();
  });
}

SocketDeadline::~SocketDeadline() {
  watch_->over = true;
  timer_.cancel();
}

asio::awaitable<boost::system::error_code> AwaitReadable(
    asio::ip::tcp::socket& socket, std::chrono::steady_clock::time_point deadline) {
  const SocketDeadline guard(socket, deadline);
  auto [ec] = co_await socket.async_wait(asio::ip::tcp::socket::wait_read,
                                         asio::as_tuple(asio::use_awaitable));
  if (guard.expired()) co_return boost::beast::error::timeout;
  co_return ec;
}

}  // namespace agentgate::upstream
