#include "runtime/runs/run_registry.hpp"

namespace agentgate {

RunRegistry::Entered RunRegistry::Register(const std::string& run_id, RunKind kind,
                                           std::shared_ptr<const RunRecord> unwritten,
                                           const boost::asio::any_io_executor& executor,
                                           std::int64_t starts_after) {
  Entered entered{std::make_shared<TurnCancel>(executor),
                  std::make_shared<RunChannel>(max_events_, starts_after)};
  const auto ahead =
      unwritten != nullptr ? Registered::Ahead::kUnwritten : Registered::Ahead::kNothing;
  bool entered_now = false;
  {
    std::lock_guard lock(mutex_);
    entered_now = running_
                      .emplace(run_id, Registered{entered.cancel, entered.channel, kind, ahead,
                                                  std::move(unwritten)})
                      .second;
    if (entered_now && kind == RunKind::kBackground) ++background_;
  }
  if (entered_now && entered_) entered_(run_id);
  return entered;
}

void RunRegistry::Ending(const RunRecord& ended) {
  auto record = std::make_shared<const RunRecord>(ended);
  std::lock_guard lock(mutex_);
  auto it = running_.find(ended.id);
  if (it == running_.end()) return;
  it->second.ahead = Registered::Ahead::kEnding;
  it->second.record = std::move(record);
}

std::optional<RunKind> RunRegistry::Ended(const std::string& run_id) {
  std::lock_guard lock(mutex_);
  auto it = running_.find(run_id);
  if (it == running_.end()) return std::nullopt;
  const RunKind kind = it->second.kind;
  running_.erase(it);
  if (kind == RunKind::kBackground) --background_;
  return kind;
}

std::optional<RunRecord> RunRegistry::Ahead(const std::string& run_id) const {
  std::lock_guard lock(mutex_);
  auto it = running_.find(run_id);
  if (it == running_.end() || it->second.ahead == Registered::Ahead::kNothing) return std::nullopt;
  return *it->second.record;
}

std::shared_ptr<RunChannel> RunRegistry::Channel(const std::string& run_id) const {
  std::lock_guard lock(mutex_);
  auto it = running_.find(run_id);
  return it == running_.end() ? nullptr : it->second.channel;
}

bool RunRegistry::Cancel(const std::string& run_id) {
  std::shared_ptr<TurnCancel> cancel;
  {
    std::lock_guard lock(mutex_);
    auto it = running_.find(run_id);
    if (it == running_.end()) return false;
    cancel = it->second.cancel;
  }
  cancel->Cancel();  // outside the lock: it posts to the run's executor
  return true;
}

std::size_t RunRegistry::Running() const {
  std::lock_guard lock(mutex_);
  return running_.size();
}

int RunRegistry::RunningBackground() const {
  std::lock_guard lock(mutex_);
  return background_;
}

}  // namespace agentgate
