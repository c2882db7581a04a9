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

void TurnCommitter::Enqueue(Pending pending) {
  pending.queued_at = Clock::now();
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(pending));
    ++unfinished_;
    ++enqueued_;
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
  std::size_t handed_back = 0;  // the last batch, all of whose callers have their result
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      unfinished_ -= handed_back;
      handed_back = 0;
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
    WriteBatch(batch);
    handed_back = batch.size();
    batch.clear();
  }
}

void TurnCommitter::WriteBatch(std::vector<Pending>& batch) {
  std::vector<const TurnCommit*> commits;
  std::vector<const RunWrite*> runs;
  for (const auto& p : batch) {
    if (p.commit != nullptr) {
      commits.push_back(p.commit);
    } else {
      runs.push_back(p.run);
    }
  }
  auto [committed, written] = store_.CommitBatch(commits, runs);
  {
    std::lock_guard lock(mutex_);
    ++batches_;
    for (const auto& r : committed) committed_ += r ? 1 : 0;
  }
  std::size_t turn = 0, run = 0;
  for (auto& p : batch) {
    if (p.commit != nullptr) {
      auto& result = committed[turn++];
      p.done->Complete(result ? Result<bool>(true) : Result<bool>(result.error()));
    } else {
      p.done->Complete(std::move(written[run++]));
    }
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

std::size_t TurnCommitter::enqueued() const {
  std::lock_guard lock(mutex_);
  return enqueued_;
}

std::size_t TurnCommitter::unfinished() const {
  std::lock_guard lock(mutex_);
  return unfinished_;
}

}  // namespace agentgate
