#include "adapters/http_client/await_readable.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>

#include <memory>

namespace agentgate::upstream {

namespace asio = boost::asio;

asio::awaitable<boost::system::error_code> AwaitReadable(
    asio::ip::tcp::socket& socket, std::chrono::steady_clock::time_point deadline) {
  // The timer's handler runs on the socket's loop. Should it ever run after the wait ended (both
  // completions queued at once), the shared state keeps it off the socket's next operation.
  struct Watch {
    bool over = false;
    bool expired = false;
  };
  auto watch = std::make_shared<Watch>();
  asio::steady_timer timer(socket.get_executor(), deadline);
  timer.async_wait([&socket, watch](const boost::system::error_code& ec) {
    if (ec || watch->over) return;
    watch->expired = true;
    socket.cancel();
  });
  auto [ec] = co_await socket.async_wait(asio::ip::tcp::socket::wait_read,
                                         asio::as_tuple(asio::use_awaitable));
  watch->over = true;
  if (watch->expired) co_return boost::beast::error::timeout;
  co_return ec;
}

}  // namespace agentgate::upstream
