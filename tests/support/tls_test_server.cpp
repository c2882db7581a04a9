#include "support/tls_test_server.hpp"

#include "support/run_async.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace agentgate::testing {
namespace {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

asio::awaitable<void> ServeOne(asio::ssl::stream<tcp::socket> stream) {
  auto [hs] = co_await stream.async_handshake(asio::ssl::stream_base::server, kTuple);
  if (hs) co_return;
  boost::beast::flat_buffer buffer;
  for (;;) {
    bhttp::request<bhttp::string_body> request;
    auto [ec, n] = co_await bhttp::async_read(stream, buffer, request, kTuple);
    if (ec) co_return;
    bhttp::response<bhttp::string_body> response{bhttp::status::ok, 11};
    response.set(bhttp::field::content_type, "application/json");
    response.body() = R"({"tls":true,"path":")" + std::string(request.target()) + "\"}";
    response.keep_alive(request.keep_alive());
    response.prepare_payload();
    auto [wec, w] = co_await bhttp::async_write(stream, response, kTuple);
    if (wec || !request.keep_alive()) co_return;
  }
}

}  // namespace

struct TlsTestServer::Impl {
  explicit Impl(const std::string& dir)
      : directory(dir),
        context(asio::ssl::context::tls_server),
        acceptor(std::make_unique<tcp::acceptor>(
            loop.io(), tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0))) {
    std::filesystem::create_directories(dir);
    cert = dir + "/cert.pem";
    const std::string key = dir + "/key.pem";
    const std::string command =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
        "-addext subjectAltName=DNS:localhost -keyout " +
        key + " -out " + cert + " >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0)
      throw std::runtime_error("openssl could not make a test certificate");
    context.use_certificate_chain_file(cert);
    context.use_private_key_file(key, asio::ssl::context::pem);
  }

  asio::awaitable<void> Accept() {
    for (;;) {
      auto [ec, socket] = co_await acceptor->async_accept(kTuple);
      if (ec) co_return;
      asio::co_spawn(acceptor->get_executor(),
                     ServeOne(asio::ssl::stream<tcp::socket>(std::move(socket), context)),
                     asio::detached);
    }
  }

  std::string directory;
  // Destruction order matters: connections (in the loop's io_context) use the context.
  asio::ssl::context context;
  BackgroundLoop loop;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::string cert;
};

TlsTestServer::TlsTestServer(const std::string& dir) : impl_(std::make_unique<Impl>(dir)) {
  asio::co_spawn(impl_->loop.io(), impl_->Accept(), asio::detached);
}

TlsTestServer::~TlsTestServer() {
  impl_->loop.Stop();
  impl_->acceptor.reset();
  std::error_code ignored;  // a test's leftovers must not fail it
  std::filesystem::remove_all(impl_->directory, ignored);
}

unsigned short TlsTestServer::port() const {
  return impl_->acceptor->local_endpoint().port();
}
const std::string& TlsTestServer::certificate_file() const {
  return impl_->cert;
}

}  // namespace agentgate::testing
