#pragma once
// Name resolution a deadline or a cancellation really stops. Asio's resolver runs getaddrinfo on
// one hidden thread that nothing interrupts, so one stuck lookup delays every later one; c-ares
// speaks DNS on sockets the io_context watches, one lookup at a time per call.

#include "domain/error.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace agentgate {

class DnsResolver {
 public:
  // `servers`: "ip:port,…" to ask instead of /etc/resolv.conf's (tests); empty = the system's.
  explicit DnsResolver(std::string servers = "");

  // The host's addresses with `port`; a numeric address is returned as is. /etc/hosts is read
  // first, as the C library does. kUnavailable naming the host when it fails or times out.
  boost::asio::awaitable<Result<std::vector<boost::asio::ip::tcp::endpoint>>> Resolve(
      boost::asio::any_io_executor executor, const std::string& host, std::uint16_t port,
      std::chrono::steady_clock::time_point deadline) const;

 private:
  std::string servers_;
};

}  // namespace agentgate
