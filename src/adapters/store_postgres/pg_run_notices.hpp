#pragma once
// What the other servers of a PostgreSQL store wrote of runs, as the database tells it: the
// store's triggers NOTIFY channel `agentgate_runs` with a run's id whenever its row or its events
// are written, and this listener hears them on a connection and a thread of its own, so that a
// follower here of a run running elsewhere gets its events as they are written rather than at its
// watch's next look (docs/runs.md). After the connection is lost it reconnects, and tells of "any
// run" (an empty id): news may have been lost meanwhile.

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace agentgate::pg {

inline constexpr const char* kRunsChannel = "agentgate_runs";

class RunNotices {
 public:
  using Changed = std::function<void(const std::string& run_id)>;  // on the listener's thread

  RunNotices(std::string url, Changed changed);
  ~RunNotices();  // stops listening
  RunNotices(const RunNotices&) = delete;
  RunNotices& operator=(const RunNotices&) = delete;

 private:
  void Listen();

  const std::string url_;
  const Changed changed_;
  std::atomic<bool> stopping_{false};
  int wake_fd_ =
      -1;  // an eventfd: written to stop, so the listener ends at once, not at its next look
  std::thread thread_;
};

}  // namespace agentgate::pg
