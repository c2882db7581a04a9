#include "app/runs/stream_roster.hpp"

#include <boost/asio/post.hpp>

#include <map>
#include <tuple>
#include <vector>

namespace agentgate {

namespace asio = boost::asio;

namespace {

Error TooMany(const std::string& what, int limit, const std::string& key) {
  Error error(ErrorCode::kTooManyStreams, what + " already has " + std::to_string(limit) +
                                              " open event streams on this server ([runs] " + key +
                                              "); close one, or retry later");
  error.retry_after_seconds = 5;
  return error;
}

// Why a stream whose caller was refused on a check must end.
std::pair<std::string, std::string> StopOf(const Error& refused) {
  if (refused.code == ErrorCode::kUnauthenticated)
    return {"token_revoked", "the stream's token was revoked; the run goes on"};
  return {"access_removed", refused.message + "; the run goes on"};
}

}  // namespace

StreamTicket::~StreamTicket() {
  roster_.Leave(id_);
}

void StreamTicket::Stop(std::string reason, std::string message) {
  // The ticket's own executor sets it and ends the wait under way, if any; between two waits the
  // stream reads stopped() before its next one.
  asio::post(executor_, [self = shared_from_this(), reason = std::move(reason),
                         message = std::move(message)]() mutable {
    if (self->stopped()) return;
    self->reason_ = std::move(reason);
    self->message_ = std::move(message);
    self->stop_.emit(asio::cancellation_type::terminal);
  });
}

Result<std::shared_ptr<StreamTicket>> StreamRoster::Enter(const Caller& caller,
                                                          const std::string& agent_id,
                                                          const std::string& run_id,
                                                          const asio::any_io_executor& executor) {
  std::lock_guard lock(mutex_);
  int& of_token = per_token_[caller.token_id];
  if (of_token >= limits_.streams_per_token) {
    if (of_token == 0) per_token_.erase(caller.token_id);
    return TooMany("this token", limits_.streams_per_token, "max_streams_per_token");
  }
  if (!run_id.empty()) {
    auto found = per_run_.find(run_id);
    if (found != per_run_.end() && found->second >= limits_.followers_per_run) {
      if (of_token == 0) per_token_.erase(caller.token_id);
      return TooMany("run '" + run_id + "'", limits_.followers_per_run, "max_followers_per_run");
    }
    const std::string pair = run_id + "\n" + caller.token_id;
    auto mine = per_run_and_token_.find(pair);
    if (mine != per_run_and_token_.end() && mine->second >= limits_.followers_per_run_per_token) {
      if (of_token == 0) per_token_.erase(caller.token_id);
      return TooMany("this token on run '" + run_id + "'", limits_.followers_per_run_per_token,
                     "max_followers_per_run_per_token");
    }
    ++per_run_[run_id];
    ++per_run_and_token_[pair];
  }
  ++of_token;
  const std::uint64_t id = ++next_id_;
  // Not make_shared: the constructor is the roster's alone.
  std::shared_ptr<StreamTicket> ticket(new StreamTicket(*this, id, executor));
  open_.emplace(id, Open{caller, agent_id, run_id, ticket});
  return ticket;
}

void StreamRoster::Leave(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  auto it = open_.find(id);
  if (it == open_.end()) return;
  const Open& open = it->second;
  if (auto run = per_run_.find(open.run_id); run != per_run_.end() && --run->second <= 0)
    per_run_.erase(run);
  if (!open.run_id.empty()) {
    if (auto pair = per_run_and_token_.find(open.run_id + "\n" + open.caller.token_id);
        pair != per_run_and_token_.end() && --pair->second <= 0)
      per_run_and_token_.erase(pair);
  }
  if (auto token = per_token_.find(open.caller.token_id);
      token != per_token_.end() && --token->second <= 0)
    per_token_.erase(token);
  open_.erase(it);
}

std::size_t StreamRoster::open() const {
  std::lock_guard lock(mutex_);
  return open_.size();
}

asio::awaitable<void> StreamRoster::CheckRights() {
  // Each caller and agent once, however many streams share them.
  using Rights = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Rights, std::vector<std::weak_ptr<StreamTicket>>> by_rights;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, open] : open_) {
      by_rights[Rights{open.caller.org_id, open.caller.env, open.caller.token_id, open.agent_id}]
          .push_back(open.ticket);
    }
  }
  // An iterator, not references bound by a structured binding: GCC 12 loses those across a
  // suspension.
  for (auto it = by_rights.begin(); it != by_rights.end(); ++it) {
    const Caller caller{std::get<0>(it->first), std::get<1>(it->first), std::get<2>(it->first)};
    const std::string agent_id = std::get<3>(it->first);
    Result<void> allowed = co_await StillAdmitted(tenants_, caller);
    if (allowed) allowed = co_await Authorize(tenants_, caller, agent_id, "chat");
    if (allowed || allowed.error().code == ErrorCode::kUnavailable) continue;
    const auto stop = StopOf(allowed.error());
    for (const auto& weak : it->second) {
      if (auto ticket = weak.lock()) ticket->Stop(stop.first, stop.second);
    }
  }
}

}  // namespace agentgate
