#include "adapters/http_client/dns_resolver.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <ares.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>

#include <cstring>
#include <memory>
#include <mutex>

namespace agentgate {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

struct ChannelDeleter {
  void operator()(ares_channeldata* channel) const { ares_destroy(channel); }
};
using Channel = std::unique_ptr<ares_channeldata, ChannelDeleter>;

struct Lookup {
  bool done = false;
  int status = ARES_SUCCESS;
  std::uint16_t port = 0;
  std::vector<tcp::endpoint> endpoints;
};

void OnAddrInfo(void* arg, int status, int /*timeouts*/, ares_addrinfo* result) {
  auto* lookup = static_cast<Lookup*>(arg);
  lookup->done = true;
  lookup->status = status;
  if (result == nullptr) return;
  for (const ares_addrinfo_node* node = result->nodes; node != nullptr; node = node->ai_next) {
    if (node->ai_family == AF_INET) {
      sockaddr_in v4{};
      std::memcpy(&v4, node->ai_addr, sizeof v4);
      lookup->endpoints.emplace_back(asio::ip::address_v4(ntohl(v4.sin_addr.s_addr)), lookup->port);
    } else if (node->ai_family == AF_INET6) {
      sockaddr_in6 v6{};
      std::memcpy(&v6, node->ai_addr, sizeof v6);
      asio::ip::address_v6::bytes_type bytes{};
      std::memcpy(bytes.data(), &v6.sin6_addr, bytes.size());
      lookup->endpoints.emplace_back(asio::ip::address_v6(bytes, v6.sin6_scope_id), lookup->port);
    }
  }
  ares_freeaddrinfo(result);
}

Result<Channel> OpenChannel(const std::string& servers) {
  static std::once_flag library;
  std::call_once(library, [] { ares_library_init(ARES_LIB_INIT_ALL); });
  ares_channel raw = nullptr;
  ares_options options{};
  if (const int status = ares_init_options(&raw, &options, 0); status != ARES_SUCCESS) {
    return Error(ErrorCode::kUnavailable, std::string("resolver: ") + ares_strerror(status));
  }
  Channel channel(raw);
  if (!servers.empty()) {
    if (const int status = ares_set_servers_ports_csv(raw, servers.c_str());
        status != ARES_SUCCESS) {
      return Error(ErrorCode::kUnavailable, std::string("resolver: ") + ares_strerror(status));
    }
  }
  return channel;
}

// Waits until one of the lookup's sockets is ready or c-ares's next timeout (capped by the
// deadline) comes; the caller then asks poll() which socket it was.
asio::awaitable<void> WaitForActivity(asio::any_io_executor executor, ares_channel channel,
                                      Clock::time_point deadline) {
  using namespace asio::experimental::awaitable_operators;
  ares_socket_t sockets[ARES_GETSOCK_MAXNUM];
  const int wanted = ares_getsock(channel, sockets, ARES_GETSOCK_MAXNUM);
  std::vector<std::unique_ptr<asio::posix::stream_descriptor>> watched;
  using Wait = decltype(std::declval<asio::posix::stream_descriptor&>().async_wait(
      asio::posix::stream_descriptor::wait_read, asio::deferred));
  std::vector<Wait> waits;
  for (int i = 0; i < ARES_GETSOCK_MAXNUM; ++i) {
    const bool readable = ARES_GETSOCK_READABLE(wanted, i);
    const bool writable = ARES_GETSOCK_WRITABLE(wanted, i);
    if (!readable && !writable) continue;
    auto& descriptor = watched.emplace_back(
        std::make_unique<asio::posix::stream_descriptor>(executor, sockets[i]));
    waits.push_back(descriptor->async_wait(readable ? asio::posix::stream_descriptor::wait_read
                                                    : asio::posix::stream_descriptor::wait_write,
                                           asio::deferred));
  }
  timeval limit{1, 0};
  timeval buffer{};
  const timeval* next = ares_timeout(channel, &limit, &buffer);
  const auto wake = std::min(deadline, Clock::now() + std::chrono::seconds(next->tv_sec) +
                                           std::chrono::microseconds(next->tv_usec));
  asio::steady_timer timer(executor, wake);
  if (waits.empty()) {
    co_await timer.async_wait(kTuple);
  } else {
    auto group = asio::experimental::make_parallel_group(std::move(waits));
    auto any_socket = group.async_wait(asio::experimental::wait_for_one(), kTuple);
    auto timeout = timer.async_wait(kTuple);
    co_await (std::move(any_socket) || std::move(timeout));
  }
  // c-ares owns the sockets: stop watching them before it reads or closes them.
  for (auto& descriptor : watched) descriptor->release();
}

// Lets c-ares read what arrived and handle its own timeouts (resends, next server).
void Process(ares_channel channel) {
  ares_socket_t sockets[ARES_GETSOCK_MAXNUM];
  const int wanted = ares_getsock(channel, sockets, ARES_GETSOCK_MAXNUM);
  for (int i = 0; i < ARES_GETSOCK_MAXNUM; ++i) {
    const bool readable = ARES_GETSOCK_READABLE(wanted, i);
    const bool writable = ARES_GETSOCK_WRITABLE(wanted, i);
    if (!readable && !writable) continue;
    pollfd probe{sockets[i], static_cast<short>((readable ? POLLIN : 0) | (writable ? POLLOUT : 0)),
                 0};
    if (::poll(&probe, 1, 0) <= 0) continue;
    const bool can_read = (probe.revents & (POLLIN | POLLERR | POLLHUP)) != 0;
    const bool can_write = (probe.revents & POLLOUT) != 0;
    ares_process_fd(channel, can_read ? sockets[i] : ARES_SOCKET_BAD,
                    can_write ? sockets[i] : ARES_SOCKET_BAD);
  }
  ares_process_fd(channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
}

}  // namespace

DnsResolver::DnsResolver(std::string servers) : servers_(std::move(servers)) {}

asio::awaitable<Result<std::vector<tcp::endpoint>>> DnsResolver::Resolve(
    asio::any_io_executor executor, const std::string& host, std::uint16_t port,
    Clock::time_point deadline) const {
  boost::system::error_code not_numeric;
  const auto address = asio::ip::make_address(host, not_numeric);
  if (!not_numeric) co_return std::vector<tcp::endpoint>{tcp::endpoint(address, port)};

  Lookup lookup;  // outlives the channel, whose destruction reports to it
  lookup.port = port;
  auto channel = OpenChannel(servers_);
  if (!channel) co_return channel.error();
  ares_addrinfo_hints hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  ares_getaddrinfo(channel->get(), host.c_str(), nullptr, &hints, OnAddrInfo, &lookup);
  while (!lookup.done) {
    if (Clock::now() >= deadline) {
      co_return Error(ErrorCode::kUnavailable, "resolve " + host + ": timed out");
    }
    co_await WaitForActivity(executor, channel->get(), deadline);
    const auto state = co_await asio::this_coro::cancellation_state;
    if (state.cancelled() != asio::cancellation_type::none) {
      co_return Error(ErrorCode::kUnavailable, "resolve " + host + ": canceled");
    }
    Process(channel->get());
  }
  // Destroying the channel (on return) ends the lookup's queries and closes its sockets.
  if (lookup.status != ARES_SUCCESS) {
    co_return Error(ErrorCode::kUnavailable,
                    "resolve " + host + ": " + std::string(ares_strerror(lookup.status)));
  }
  if (lookup.endpoints.empty()) {
    co_return Error(ErrorCode::kUnavailable, "resolve " + host + ": no addresses");
  }
  co_return std::move(lookup.endpoints);
}

}  // namespace agentgate
