// Waiting for readability under a deadline, on a real loopback connection.
#include "adapters/http_client/await_readable.hpp"
#include "support/run_async.hpp"

#include <gtest/gtest.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>

#include <array>

namespace agentgate::testing {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

class AwaitReadableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tcp::acceptor acceptor(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    client_.connect(acceptor.local_endpoint());
    acceptor.accept(peer_);
  }

  boost::system::error_code Wait(Clock::time_point deadline) {
    return RunAsync(io_, upstream::AwaitReadable(client_, deadline));
  }

  asio::io_context io_;
  tcp::socket client_{io_};
  tcp::socket peer_{io_};
};

TEST_F(AwaitReadableTest, CompletesWhenBytesArriveAndLeavesThemToBeRead) {
  asio::write(peer_, asio::buffer(std::string_view("hello")));
  EXPECT_FALSE(Wait(Clock::now() + 5s));
  std::array<char, 5> got{};
  asio::read(client_, asio::buffer(got));
  EXPECT_EQ(std::string_view(got.data(), got.size()), "hello");
}

TEST_F(AwaitReadableTest, CompletesWhenThePeerCloses) {
  peer_.close();
  EXPECT_FALSE(Wait(Clock::now() + 5s));
  std::array<char, 1> byte{};
  boost::system::error_code ec;
  client_.read_some(asio::buffer(byte), ec);
  EXPECT_EQ(ec, asio::error::eof);
}

TEST_F(AwaitReadableTest, EndsAtTheDeadlineWithATimeout) {
  const auto started = Clock::now();
  EXPECT_EQ(Wait(started + 100ms), boost::beast::error::timeout);
  const auto waited = Clock::now() - started;
  EXPECT_GE(waited, 100ms);
  EXPECT_LT(waited, 1500ms);
}

TEST_F(AwaitReadableTest, CancelingTheSocketEndsTheWait) {
  asio::steady_timer later(io_, 50ms);
  later.async_wait([this](const boost::system::error_code&) { client_.cancel(); });
  EXPECT_EQ(Wait(Clock::now() + 5s), asio::error::operation_aborted);
}

}  // namespace
}  // namespace agentgate::testing
