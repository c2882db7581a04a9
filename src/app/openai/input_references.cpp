// The stored messages a Responses API input names to be read (docs/openai.md, "Histories the
// client keeps"): a conversation's item, or a stateless call's reference to a response's reply.
#include "app/openai/input_references.hpp"

#include "app/openai/conversations.hpp"
#include "app/openai/responses.hpp"
#include "domain/resource_ids.hpp"

namespace agentgate {

namespace asio = boost::asio;

namespace {

// The message `item_id` names, if the caller may read it.
asio::awaitable<Result<MessageRecord>> StoredMessage(StoreRunner& store, TenantDirectory& tenants,
                                                     const Caller& caller,
                                                     const std::string& item_id) {
  if (const auto place = ids::ItemPlaceOf(item_id)) {
    OpenAiConversations conversations(store, tenants, caller);
    co_return co_await conversations.FindItem(place->conversation_id, item_id);
  }
  // A response's reply: the last message its turn wrote.
  AG_CO_TRY(auto answered,
            co_await AnsweringTurn(store, tenants, caller, ids::ResponseOf(item_id)));
  co_return std::move(answered.messages.back());
}

}  // namespace

asio::awaitable<Result<void>> ReadReferences(StoreRunner& store, TenantDirectory& tenants,
                                             const Caller& caller, ResponseRequest& asked) {
  for (const ItemToResolve& reference : asked.resolve) {
    auto message = co_await StoredMessage(store, tenants, caller, reference.item_id);
    if (!message) {
      if (IsServiceFailure(message.error())) co_return message.error();
      co_return InvalidField(reference.field,
                             "names no stored message this key may read (unknown, another "
                             "environment's, or past its retention)");
    }
    ChatMessage& place = asked.request.history.at(reference.history_index);
    place.role = message->role == "assistant" ? Role::kAssistant : Role::kUser;
    place.content = std::move(message->content);
  }
  co_return Result<void>{};
}

}  // namespace agentgate
