#pragma once
// A streamed response's body as the server writes it: each write one chunk (HTTP/1.1) with its
// own write timeout. The head waits for the first write: a stream whose first write is its last (a
// quick run's every event) goes out as one plain response with its length, which no client has to
// unchunk.

#include "adapters/http_server/connection.hpp"
#include "adapters/http_server/http_types.hpp"

#include <chrono>
#include <string>
#include <string_view>

namespace agentgate::http {

class ChunkWriter final : public ResponseStream {
 public:
  ChunkWriter(Connection& c, const Response& response, unsigned version, bool keep_alive,
              std::chrono::seconds timeout);
  boost::asio::awaitable<bool> Write(std::string data) override;
  boost::asio::awaitable<bool> WriteLast(std::string data) override;
  // Ends the response (its last chunk, or the whole of an empty one); false once the client is
  // gone.
  boost::asio::awaitable<bool> End();

 private:
  void Frame(const std::string& data);
  boost::asio::awaitable<bool> SendWhole(std::string body);
  // What is unsent, then `tail`, in one send: a whole stream's body is not copied after its head.
  boost::asio::awaitable<bool> Send(std::string_view tail = {});

  Connection& c_;
  const Response& response_;  // its head's status and fields
  const unsigned version_;
  const bool keep_alive_;
  std::string unsent_;  // each send's bytes, the head with the first
  const std::chrono::seconds timeout_;
  const bool chunked_;
  bool head_sent_ = false;
  bool ok_ = true;
  bool ended_ = false;
};

}  // namespace agentgate::http
