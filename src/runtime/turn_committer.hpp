#pragma once
// Group commit for finished turns and for runs' records. A turn's commit (or a run's write) is
// queued to a writer thread, which commits every turn waiting in one store transaction (each turn
// all or nothing inside it, see Store::CommitTurns), every run write waiting in another
// (Store::WriteRuns), and resumes each caller on its own executor when the batch is durable. Under
// load a batch spreads the store's lock, log write and thread wake-ups over many turns; a turn
// that finds the writer idle is committed at once. Several writers suit a store that commits in
// parallel (PostgreSQL); one suits SQLite, whose writes are serial anyway: writers of their own
// would wait on its lock, and sleep in its busy handler.
//
// A commit, once queued, always completes: Commit() ignores cancellation, so a turn past its cap
// that reached its commit learns the commit's outcome instead of abandoning it half-known.
//
// Neither side sleeps through a hand-off that takes microseconds when `spin` is set
// (handoff_wait.hpp): the caller's I/O thread polls until its result is back, and a writer that
// has recently found new work soon after going idle spins for it before sleeping.

#include "ports/store.hpp"
#include "runtime/handoff_wait.hpp"

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace agentgate {

class TurnCommitter {
 public:
  TurnCommitter(Store& store, int writers, std::size_t max_batch,
                std::chrono::microseconds spin = std::chrono::microseconds(0),
                Metrics* metrics = nullptr);
  ~TurnCommitter();  // commits what is queued, then stops the writers
  TurnCommitter(const TurnCommitter&) = delete;
  TurnCommitter& operator=(const TurnCommitter&) = delete;

  // `commit` must stay alive until the call completes (the caller awaits it).
  boost::asio::awaitable<Result<void>> Commit(const TurnCommit& commit) {
    const AwaitedHandoff awaited(co_await boost::asio::this_coro::executor);
    auto done = co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>,
                                                     void(Result<bool>)>(
        [this](auto handler, const TurnCommit* pending) {
          Enqueue(Pending{pending,
                          nullptr,
                          std::make_unique<Resume<decltype(handler)>>(std::move(handler)),
                          {}});
        },
        boost::asio::use_awaitable, &commit);
    if (!done) co_return done.error();
    co_return Result<void>{};
  }
  // A run's write (Store::WriteRuns says what it answers); `write` must stay alive until the call
  // completes.
  boost::asio::awaitable<Result<bool>> Write(const RunWrite& write) {
    co_return co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>,
                                                   void(Result<bool>)>(
        [this](auto handler, const RunWrite* pending) {
          Enqueue(Pending{nullptr,
                          pending,
                          std::make_unique<Resume<decltype(handler)>>(std::move(handler)),
                          {}});
        },
        boost::asio::use_awaitable, &write);
  }

  // Batches committed so far, the turns committed in them, and the commits and writes ever
  // queued (the tests read these).
  std::size_t batches() const;
  std::size_t committed() const;
  std::size_t enqueued() const;
  // Commits and writes queued or being written whose callers have not yet been handed their
  // result: an event loop must outlive these (a test's loop waits for none before it ends).
  std::size_t unfinished() const;

 private:
  // Hands a result to a waiting caller on its own executor (handlers are move-only).
  struct Completion {
    virtual ~Completion() = default;
    virtual void Complete(Result<bool> result) = 0;
  };
  template <class Handler>
  struct Resume final : Completion {
    explicit Resume(Handler h) : handler(std::move(h)) {}
    void Complete(Result<bool> result) override {
      auto home = boost::asio::get_associated_executor(handler);
      boost::asio::post(home, [h = std::move(handler), r = std::move(result)]() mutable {
        std::move(h)(std::move(r));
      });
    }
    Handler handler;
  };
  struct Pending {
    const TurnCommit* commit;  // one of the two
    const RunWrite* run;
    std::unique_ptr<Completion> done;
    std::chrono::steady_clock::time_point queued_at;
  };

  void Enqueue(Pending pending);
  // Writes a batch taken from the queue: its turns in one transaction, its run writes in another.
  void WriteBatch(std::vector<Pending>& batch);
  void Write();
  void SpinForWork();

  Store& store_;
  const std::size_t max_batch_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> queue_;
  std::atomic<std::size_t> queued_{0};  // queue_.size(), read without the lock while spinning
  std::atomic<bool> spinning_{false};   // one writer spins at a time; the others sleep
  SpinPolicy spin_;
  std::chrono::steady_clock::time_point idle_since_;  // when a writer last found the queue empty
  SpinBackoff backoff_;                               // used by the writer holding spinning_
  Metrics* metrics_;
  bool stopping_ = false;
  std::size_t batches_ = 0;
  std::size_t committed_ = 0;
  std::size_t unfinished_ = 0;  // enqueued, and not yet handed back by a writer
  std::size_t enqueued_ = 0;
  std::vector<std::thread> writers_;
};

}  // namespace agentgate
