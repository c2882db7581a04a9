#pragma once
// Test helpers: run a coroutine to completion, and an io_context on a background thread.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <future>
#include <thread>

namespace agentgate::testing {

// Runs `io` until `work` is done; other work (an HTTP client's idle-connection timer) may stay.
template <class T>
T RunAsync(boost::asio::io_context& io, boost::asio::awaitable<T> work) {
  auto future = boost::asio::co_spawn(io, std::move(work), boost::asio::use_future);
  io.restart();
  while (future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    if (io.run_one() == 0) break;
  }
  return future.get();
}

// An io_context served by one background thread until destruction.
class BackgroundLoop {
 public:
  BackgroundLoop() : guard_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~BackgroundLoop() { Stop(); }
  // Stops the thread; I/O objects may then be destroyed from the test thread.
  void Stop() {
    guard_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }
  boost::asio::io_context& io() { return io_; }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::thread thread_;
};

}  // namespace agentgate::testing
