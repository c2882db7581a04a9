#pragma once
// A conversation's newest messages, read from its tail by either engine until their contents
// total more than `max_bytes` (the message that crosses it included) or `max_messages` are read
// (ConversationStore::LoadRecentMessages).

#include "ports/store_records.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace agentgate {

class RecentMessages {
 public:
  RecentMessages(std::size_t max_bytes, std::size_t max_messages)
      : max_bytes_(max_bytes), max_messages_(max_messages) {}

  bool WantsMore() const { return bytes_ <= max_bytes_ && newest_first_.size() < max_messages_; }
  // The next older message.
  void Add(MessageRecord message) {
    bytes_ += message.content.size();
    newest_first_.push_back(std::move(message));
  }
  std::vector<MessageRecord> OldestFirst() && {
    std::reverse(newest_first_.begin(), newest_first_.end());
    return std::move(newest_first_);
  }

 private:
  std::size_t max_bytes_;
  std::size_t max_messages_;
  std::size_t bytes_ = 0;
  std::vector<MessageRecord> newest_first_;
};

}  // namespace agentgate
