#pragma once
// The event streams open on this server (docs/runs.md, "Followers"): a follower of a run's events,
// or a streamed invoke's own stream. Each holds a ticket while it is open, counted against the
// limits per run and per token; and each goes on only while its caller may follow: every period
// the roster checks each open stream's token and grant once (through the tenant cache, so once a
// second at most per token and agent, however many streams share them) and stops the streams that
// lost them, which then end with a `stream.ended` event saying why.

#include "app/access/authenticate.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace agentgate {

struct StreamLimits {
  int followers_per_run = 100;   // [runs] max_followers_per_run
  int streams_per_token = 1000;  // [runs] max_streams_per_token
  // One token's followers of one run ([runs] max_followers_per_run_per_token): so one token cannot
  // take every place a run has and leave none for the others.
  int followers_per_run_per_token = 10;
};

class StreamRoster;

// One open stream's place in the roster, given back when the ticket is destroyed. Its stop is
// asked from any thread and read on the stream's own executor.
class StreamTicket : public std::enable_shared_from_this<StreamTicket> {
 public:
  StreamTicket(const StreamTicket&) = delete;
  StreamTicket& operator=(const StreamTicket&) = delete;
  ~StreamTicket();

  // The stream's executor only: whether it must end, and why (a word such as "token_revoked", and
  // a sentence for people).
  bool stopped() const { return !reason_.empty(); }
  const std::string& reason() const { return reason_; }
  const std::string& message() const { return message_; }
  // The stream's waits end when it is stopped.
  boost::asio::cancellation_slot stop_slot() { return stop_.slot(); }
  // Any thread: the stream must end (on its executor), for `reason`; the first reason stands.
  void Stop(std::string reason, std::string message);

 private:
  friend class StreamRoster;
  StreamTicket(StreamRoster& roster, std::uint64_t id, boost::asio::any_io_executor executor)
      : roster_(roster), id_(id), executor_(std::move(executor)) {}

  StreamRoster& roster_;
  const std::uint64_t id_;
  const boost::asio::any_io_executor executor_;
  boost::asio::cancellation_signal stop_;
  std::string reason_;
  std::string message_;
};

class StreamRoster {
 public:
  StreamRoster(TenantDirectory& tenants, StreamLimits limits)
      : tenants_(tenants), limits_(limits) {}

  // A place for `caller`'s stream of agent `agent_id`'s run `run_id` (empty: a run not yet begun,
  // a streamed invoke's own), on `executor`; 429 too_many_streams naming the limit it would pass.
  Result<std::shared_ptr<StreamTicket>> Enter(const Caller& caller, const std::string& agent_id,
                                              const std::string& run_id,
                                              const boost::asio::any_io_executor& executor);
  // One check of every open stream's right to go on; stops those that lost it. A failed read (the
  // store away) stops nothing.
  boost::asio::awaitable<void> CheckRights();

  std::size_t open() const;  // streams open here

 private:
  friend class StreamTicket;
  struct Open {
    Caller caller;
    std::string agent_id;
    std::string run_id;
    std::weak_ptr<StreamTicket> ticket;
  };
  void Leave(std::uint64_t id);

  TenantDirectory& tenants_;
  const StreamLimits limits_;
  mutable std::mutex mutex_;
  std::uint64_t next_id_ = 0;
  std::unordered_map<std::uint64_t, Open> open_;
  std::unordered_map<std::string, int> per_run_;
  std::unordered_map<std::string, int> per_token_;
  std::unordered_map<std::string, int> per_run_and_token_;  // "<run id>\n<token id>"
};

}  // namespace agentgate
