#pragma once
// Waiting for a socket to become readable, under a deadline, with nothing allocated for reading: a
// request waiting on a thinking model holds no read buffer, parser or Beast read operation until
// its answer's first bytes arrive (bench/in_flight.py). Private to the HTTP client.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>

namespace agentgate::upstream {

// Completes when `socket` has bytes to read or the peer closed it (success), at `deadline`
// (boost::beast::error::timeout), or when the socket or the awaiting coroutine is canceled.
boost::asio::awaitable<boost::system::error_code> AwaitReadable(
    boost::asio::ip::tcp::socket& socket, std::chrono::steady_clock::time_point deadline);

}  // namespace agentgate::upstream
