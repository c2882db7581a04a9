#pragma once
// Waiting on a socket under one deadline. AwaitReadable waits for a socket to become readable with
// nothing allocated for reading: a request waiting on a thinking model holds no read buffer,
// parser or Beast read operation until its answer's first bytes arrive (bench/in_flight.py).
// SocketDeadline is one timer for a whole exchange, not one per read: a streamed answer reads a
// few bytes a token for minutes (bench/streams.py). Private to the HTTP client.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <memory>

namespace agentgate::upstream {

// Cancels `socket`'s operations at `deadline`; expired() then says why they ended. The socket
// must outlive the guard.
class SocketDeadline {
 public:
  SocketDeadline(boost::asio::ip::tcp::socket& socket,
                 std::chrono::steady_clock::time_point deadline);
  ~SocketDeadline();
  SocketDeadline(const SocketDeadline&) = delete;
  SocketDeadline& operator=(const SocketDeadline&) = delete;
  bool expired() const { return watch_->expired; }

 private:
  // The timer's handler runs on the socket's loop. Should it ever run after the guard ended (both
  // completions queued at once), the shared state keeps it off the socket's next operation.
  struct Watch {
    bool over = false;
    bool expired = false;
  };
  std::shared_ptr<Watch> watch_;
  boost::asio::steady_timer timer_;
};

// Completes when `socket` has bytes to read or the peer closed it (success), at `deadline`
// (boost::beast::error::timeout), or when the socket or the awaiting coroutine is canceled.
boost::asio::awaitable<boost::system::error_code> AwaitReadable(
    boost::asio::ip::tcp::socket& socket, std::chrono::steady_clock::time_point deadline);

}  // namespace agentgate::upstream
