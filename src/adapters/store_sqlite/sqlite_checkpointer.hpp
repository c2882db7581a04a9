#pragma once
// Checkpoints a WAL-mode database file on a thread of its own. SQLite's automatic checkpoint runs
// inside the commit that takes the WAL past its threshold: that commit, and every turn of its
// group, waits for the copy and its two fsyncs (one connection's p99 was 4.3-5.4 ms with it and
// 0.6-0.9 ms without, docs/performance.md). Here a commit only notes the WAL's size.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

namespace agentgate::sqlite {

class CheckpointConnection;

// This process's writers of one file enter it before BEGIN IMMEDIATE: they then wait their turn
// on a mutex (woken at once) instead of in SQLite's busy handler, which sleeps 1, 2, 5 ... ms
// between retries (other processes sharing the file still meet it). The checkpointer goes ahead
// of writers that come after it: a writer committing back to back would otherwise take the
// mutex again before the waiting checkpointer wakes.
class WriterGate {
 public:
  std::unique_lock<std::mutex> Enter() {
    { std::lock_guard wait_behind_the_checkpointer(turnstile_); }
    return std::unique_lock(writer_);
  }
  std::unique_lock<std::mutex> EnterAhead() {
    std::lock_guard keep_later_writers_out(turnstile_);
    return std::unique_lock(writer_);
  }

 private:
  std::mutex turnstile_;
  std::mutex writer_;
};

class Checkpointer {
 public:
  Checkpointer(std::string path, int threshold_pages, WriterGate& writers);
  ~Checkpointer();  // waits for a checkpoint under way
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // From a connection's WAL hook, after each commit: the WAL holds `wal_pages` frames.
  void Committed(int wal_pages);
  // Checkpoints that copied the whole WAL, so that the next write starts it over.
  std::uint64_t Completed() const;

 private:
  void Run(std::stop_token stop);
  bool CopyWhole(CheckpointConnection& db);

  const std::string path_;
  const int threshold_pages_;
  WriterGate& writers_;
  std::mutex mutex_;
  std::condition_variable_any wanted_;
  bool requested_ = false;
  std::atomic<std::uint64_t> completed_{0};
  std::jthread thread_;  // last: it starts once the members it uses exist
};

}  // namespace agentgate::sqlite
