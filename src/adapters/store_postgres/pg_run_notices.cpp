#include "adapters/store_postgres/pg_run_notices.hpp"

#include "adapters/store_postgres/pg_db.hpp"
#include "observability/log.hpp"
#include "observability/thread_name.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>

namespace agentgate::pg {

namespace {
// How long a wait for notices lasts before the listener looks whether it should stop.
constexpr std::chrono::milliseconds kStopLook{250};
constexpr std::chrono::seconds kReconnectAfter{1};
}  // namespace

RunNotices::RunNotices(std::string url, Changed changed)
    : url_(std::move(url)),
      changed_(std::move(changed)),
      wake_fd_(::eventfd(0, EFD_CLOEXEC)),
      thread_([this] { Listen(); }) {}

RunNotices::~RunNotices() {
  stopping_ = true;
  const std::uint64_t one = 1;
  if (wake_fd_ >= 0 && ::write(wake_fd_, &one, sizeof one) < 0) {
    // the listener then ends at its next look instead
  }
  thread_.join();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void RunNotices::Listen() {
  NameThisThread("ag-run-notices");
  bool lost = false;  // the previous connection went away: news may have been missed
  while (!stopping_) {
    try {
      Connection connection(url_);
      connection.Exec(std::string("LISTEN ") + kRunsChannel);
      if (lost) changed_("");
      lost = false;
      while (!stopping_) {
        for (const auto& run_id : connection.WaitForNotices(kStopLook, wake_fd_)) changed_(run_id);
      }
    } catch (const PgError& e) {
      if (!lost) log::Warn("run_notices_lost", {{"error", std::string_view(e.what())}});
      lost = true;
      const auto until = std::chrono::steady_clock::now() + kReconnectAfter;
      while (!stopping_ && std::chrono::steady_clock::now() < until) {
        pollfd wake{wake_fd_, POLLIN, 0};
        ::poll(&wake, wake_fd_ >= 0 ? 1 : 0, static_cast<int>(kStopLook.count()));
      }
    }
  }
}

}  // namespace agentgate::pg
