#pragma once
// The Conversations API (docs/openai.md, "Conversations") over the stored conversations of the
// caller's organization and environment: another's, or one of an agent the key has no chat grant
// on, is 404 as one that does not exist. A conversation created here is bound to no agent until
// a response names it (BindForResponse); its items are its messages.

#include "app/access/authenticate.hpp"
#include "app/access/tenant_directory.hpp"
#include "runtime/store_runner.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace agentgate {

// A page of items asked for: after the item `after` names, oldest first or newest first.
struct ItemListQuery {
  std::optional<std::string> after;
  int limit = 20;  // 1..100
  bool descending = true;
};

class OpenAiConversations {
 public:
  OpenAiConversations(StoreRunner& store, TenantDirectory& tenants, const Caller& caller)
      : store_(store), tenants_(tenants), caller_(caller) {}

  // `body`: optional `items` (at most 20 messages) and `metadata`.
  boost::asio::awaitable<Result<boost::json::object>> Create(const boost::json::object& body,
                                                             std::int64_t now_ms);
  boost::asio::awaitable<Result<boost::json::object>> Read(const std::string& id);
  // `body`: `metadata`, which replaces the conversation's.
  boost::asio::awaitable<Result<boost::json::object>> Update(const std::string& id,
                                                             const boost::json::object& body);
  // 409 conversation_busy while a turn is queued or running on it, as for the two below.
  boost::asio::awaitable<Result<boost::json::object>> Delete(const std::string& id,
                                                             std::int64_t now_ms);
  boost::asio::awaitable<Result<boost::json::object>> AddItems(const std::string& id,
                                                               const boost::json::object& body,
                                                               std::int64_t now_ms);
  // Answers the conversation, as OpenAI does.
  boost::asio::awaitable<Result<boost::json::object>> DeleteItem(const std::string& id,
                                                                 const std::string& item_id,
                                                                 std::int64_t now_ms);
  boost::asio::awaitable<Result<boost::json::object>> ListItems(const std::string& id,
                                                                const ItemListQuery& query);
  boost::asio::awaitable<Result<boost::json::object>> ReadItem(const std::string& id,
                                                               const std::string& item_id);
  // The message an item id names in conversation `id`: 404 for none the caller may read.
  boost::asio::awaitable<Result<MessageRecord>> FindItem(const std::string& id,
                                                         const std::string& item_id);

  // A response naming the conversation (`conversation` on POST /v1/responses): the caller's, bound
  // to `agent_id` (bound to it now when bound to none); 404 for none the caller may use, 400
  // naming `conversation` for one bound to another agent or instance.
  boost::asio::awaitable<Result<void>> BindForResponse(const std::string& id,
                                                       const std::string& agent_id,
                                                       const std::string& instance_id);

 private:
  boost::asio::awaitable<Result<ConversationRecord>> Find(const std::string& id);

  StoreRunner& store_;
  TenantDirectory& tenants_;
  const Caller& caller_;
};

}  // namespace agentgate
