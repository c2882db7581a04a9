#include "adapters/http_server/chunk_writer.hpp"

#include "adapters/http_server/response_head.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_suffix.hpp>

#include <array>
#include <cstdio>

namespace agentgate::http {

namespace asio = boost::asio;
namespace beast = boost::beast;

ChunkWriter::ChunkWriter(Connection& c, const Response& response, unsigned version, bool keep_alive,
                         std::chrono::seconds timeout)
    : c_(c),
      response_(response),
      version_(version),
      keep_alive_(keep_alive),
      timeout_(timeout),
      chunked_(version != 10) {}

asio::awaitable<bool> ChunkWriter::Write(std::string data) {
  if (!ok_ || ended_ || data.empty()) co_return ok_ && !ended_;
  Frame(data);
  co_return co_await Send();
}

asio::awaitable<bool> ChunkWriter::WriteLast(std::string data) {
  if (!ok_ || ended_) co_return ok_ && !ended_;
  if (!head_sent_) co_return co_await SendWhole(std::move(data));
  if (!data.empty()) Frame(data);
  co_return co_await End();
}

asio::awaitable<bool> ChunkWriter::End() {
  if (!ok_ || ended_) co_return ok_;
  if (!head_sent_) {
    std::string nothing;  // not a temporary across the co_await (GCC 12)
    co_return co_await SendWhole(std::move(nothing));
  }
  ended_ = true;
  if (chunked_) unsent_.append("0\r\n\r\n");
  co_return co_await Send();
}

void ChunkWriter::Frame(const std::string& data) {
  if (!head_sent_) unsent_ = ResponseHead(response_, version_, keep_alive_);
  head_sent_ = true;
  if (chunked_) {
    char size[20];
    const int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    unsent_.append(size, static_cast<std::size_t>(n));
  }
  unsent_ += data;
  if (chunked_) unsent_ += "\r\n";
}

asio::awaitable<bool> ChunkWriter::SendWhole(std::string body) {
  head_sent_ = ended_ = true;
  unsent_ = ResponseHead(response_, version_, keep_alive_, body.size());
  co_return co_await Send(body);
}

asio::awaitable<bool> ChunkWriter::Send(std::string_view tail) {
  if (unsent_.empty() && tail.empty()) co_return ok_;
  const std::array<asio::const_buffer, 2> both{asio::buffer(unsent_), asio::buffer(tail)};
  // What the socket takes at once is written then and there, with no timer, no wait and no trip
  // through the event loop (a stream's event mostly fits); only what it does not take waits for
  // it, within the timeout, as a slow client's send must.
  auto& socket = c_.stream.socket();
  if (!socket.non_blocking()) {
    boost::system::error_code unset;  // then every byte waits, as below
    socket.non_blocking(true, unset);
  }
  boost::system::error_code ec;
  const std::size_t sent = socket.non_blocking() ? socket.write_some(both, ec) : 0;
  if (ec == asio::error::would_block) ec = {};
  if (!ec) {
    beast::buffers_suffix<std::array<asio::const_buffer, 2>> rest(both);
    rest.consume(sent);
    if (beast::buffer_bytes(rest) > 0) {
      c_.stream.expires_after(timeout_);
      auto [waited, n] = co_await asio::async_write(c_.stream, rest, kAsTuple);
      ec = waited;
    }
  }
  unsent_.clear();
  ok_ = !ec;
  co_return ok_;
}

}  // namespace agentgate::http
