#pragma once
// Runs blocking store calls on a bounded thread pool so no I/O thread ever waits on the store;
// the awaiting coroutine resumes on its own executor.

#include "ports/store.hpp"

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <type_traits>

namespace agentgate {

class StoreRunner {
 public:
  StoreRunner(Store& store, boost::asio::thread_pool& pool) : store_(store), pool_(pool) {}

  // co_await runner.Run([&](Store& s) { return s.GetOrg(id); });
  // Capture by reference only: the caller awaits, so its locals outlive the call, and GCC 12
  // destroys non-trivial temporaries of a co_await expression twice (a by-value capture crashes).
  template <class Fn>
  boost::asio::awaitable<std::invoke_result_t<Fn&, Store&>> Run(Fn fn) {
    using R = std::invoke_result_t<Fn&, Store&>;
    return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>, void(R)>(
        [this](auto handler, Fn work) {
          boost::asio::post(
              pool_, [this, handler = std::move(handler), work = std::move(work)]() mutable {
                R result = work(store_);
                auto home = boost::asio::get_associated_executor(handler);
                boost::asio::post(
                    home, [handler = std::move(handler), result = std::move(result)]() mutable {
                      std::move(handler)(std::move(result));
                    });
              });
        },
        boost::asio::use_awaitable, std::move(fn));
  }

  // Runs `work` on the blocking pool without waiting: cleanup that must happen even when the
  // coroutine that needs it was canceled (a canceled coroutine can no longer co_await).
  template <class Fn>
  void Post(Fn work) {
    boost::asio::post(pool_, [this, work = std::move(work)]() mutable { work(store_); });
  }

 private:
  Store& store_;
  boost::asio::thread_pool& pool_;
};

}  // namespace agentgate
