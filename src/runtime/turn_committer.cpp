#include "runtime/turn_committer.hpp"

#include "observability/thread_name.hpp"

namespace agentgate {

using Clock = std::chrono::steady_clock;

TurnCommitter::TurnCommitter(Store& store, int writers, std::size_t max_batch,
                             std::chrono::microseconds spin, Metrics* metrics)
    : store_(store), max_batch_(max_batch), spin_(spin), metrics_(metrics) {
  for (int i = 0; i < writers; ++i) writers_.emplace_back([this] { Write(); });
}

TurnCommitter::~TurnCommitter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& writer : writers_) writer.join();
}

void TurnCommitter::Enqueue(const TurnCommit* commit, std::unique_ptr<Completion> done) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(Pending{commit, std::move(done), Clock::now()});
    queued_.store(queue_.size(), std::memory_order_release);
  }
  wake_.notify_one();
}

// Called with the lock not held; the backoff is this writer's own (spinning_ admits one writer).
void TurnCommitter::SpinForWork() {
  if (spinning_.exchange(true)) return;
  if (backoff_.Allows()) {
    ContentionWatch watch;
    const auto until = Clock::now() + spin_.budget();
    bool contended = false;
    for (int pass = 1; queued_.load(std::memory_order_acquire) == 0 && Clock::now() < until;
         ++pass) {
      std::this_thread::yield();
      if (pass % 4 == 0 && watch.Contended()) {
        contended = true;
        break;
      }
    }
    EndSpin(backoff_, metrics_, "committer", contended,
            queued_.load(std::memory_order_acquire) > 0);
  }
  spinning_.store(false);
}

void TurnCommitter::Write() {
  NameThisThread("ag-commit");
  std::vector<Pending> batch;
  std::vector<const TurnCommit*> commits;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (queue_.empty() && !stopping_) {
        // The gap is counted from the last moment any writer found nothing to do: with two
        // writers, the one woken may have been idle long before the other.
        idle_since_ = Clock::now();
        if (spin_.ShouldSpin()) {
          lock.unlock();
          SpinForWork();
          lock.lock();
        }
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (!queue_.empty()) spin_.ObserveWait(queue_.front().queued_at - idle_since_);
      }
      if (queue_.empty()) return;  // stopping, and nothing left to commit
      while (!queue_.empty() && batch.size() < max_batch_) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      queued_.store(queue_.size(), std::memory_order_release);
    }
    commits.clear();
    for (const auto& p : batch) commits.push_back(p.commit);
    auto results = store_.CommitTurns(commits);
    {
      std::lock_guard lock(mutex_);
      ++batches_;
      for (const auto& r : results) committed_ += r ? 1 : 0;
    }
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i].done->Complete(std::move(results[i]));
    batch.clear();
  }
}

std::size_t TurnCommitter::batches() const {
  std::lock_guard lock(mutex_);
  return batches_;
}

std::size_t TurnCommitter::committed() const {
  std::lock_guard lock(mutex_);
  return committed_;
}

}  // namespace agentgate
