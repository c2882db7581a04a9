#include "app/openai/conversations.hpp"

#include "crypto/crypto.hpp"
#include "domain/json_text.hpp"
#include "domain/openai/conversation_objects.hpp"
#include "domain/openai/request_fields.hpp"
#include "domain/resource_ids.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentgate {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

Error NoSuchConversation(const std::string& id) {
  return Error(ErrorCode::kConversationNotFound, "conversation '" + id + "' not found");
}

Error NoSuchItem(const std::string& item_id) {
  return Error(ErrorCode::kNotFound, "item '" + item_id + "' not found in this conversation");
}

json::object MetadataOf(const ConversationRecord& c) {
  boost::system::error_code ec;
  auto parsed = json::parse(c.metadata_json, ec);
  if (ec || !parsed.is_object()) return {};
  return std::move(parsed.as_object());
}

json::object ObjectOf(const ConversationRecord& c) {
  return openai::ConversationObject(c.id, c.created_at_ms / 1000, MetadataOf(c));
}

json::object ItemOf(const std::string& conversation_id, const MessageRecord& m) {
  return openai::ItemObject(ids::ItemOf(conversation_id, m.seq), {m.role, m.content});
}

std::vector<MessageRecord> MessagesOf(const std::vector<openai::ItemText>& items,
                                      std::int64_t now_ms) {
  std::vector<MessageRecord> out;
  for (const auto& item : items) out.push_back(MessageRecord{0, item.role, item.text, now_ms});
  return out;
}

// The seq of an item of conversation `id`, or none for any other item id.
std::optional<std::int64_t> SeqIn(const std::string& id, const std::string& item_id) {
  const auto place = ids::ItemPlaceOf(item_id);
  if (!place || place->conversation_id != id) return std::nullopt;
  return place->seq;
}

}  // namespace

asio::awaitable<Result<ConversationRecord>> OpenAiConversations::Find(const std::string& id) {
  AG_CO_TRY(auto found, co_await store_.Run([&](Store& s) { return s.GetConversation(id); }));
  if (!found || found->org_id != caller_.org_id || found->env != caller_.env)
    co_return NoSuchConversation(id);
  if (!found->agent_id.empty()) {
    AG_CO_TRY(const bool may, co_await MayUse(tenants_, caller_, found->agent_id, "chat"));
    if (!may) co_return NoSuchConversation(id);
  }
  co_return std::move(*found);
}

asio::awaitable<Result<json::object>> OpenAiConversations::Create(const json::object& body,
                                                                  std::int64_t now_ms) {
  std::vector<openai::ItemText> items;
  if (const json::value* given = body.if_contains("items"); given != nullptr && !given->is_null()) {
    AG_CO_TRY(items, openai::ReadItems(*given, "items"));
  }
  json::object metadata;
  AG_CO_TRYV(openai::ReadMetadata(body, metadata));
  ConversationRecord record{ids::Make(ids::kConversation, crypto::TimeOrderedHex(now_ms, 8)),
                            caller_.org_id,
                            caller_.env,
                            "",
                            "",
                            now_ms,
                            json::serialize(metadata)};
  const auto messages = MessagesOf(items, now_ms);
  const auto created = co_await store_.Run([&](Store& s) -> Result<void> {
    AG_TRYV(s.CreateConversation(record));
    if (messages.empty()) return {};
    AG_TRYV(s.AppendConversationItems(record.id, messages, now_ms));
    return {};
  });
  if (!created) co_return created.error();
  co_return ObjectOf(record);
}

asio::awaitable<Result<json::object>> OpenAiConversations::Read(const std::string& id) {
  AG_CO_TRY(const auto found, co_await Find(id));
  co_return ObjectOf(found);
}

asio::awaitable<Result<json::object>> OpenAiConversations::Update(const std::string& id,
                                                                  const json::object& body) {
  AG_CO_TRY(auto found, co_await Find(id));
  if (body.if_contains("metadata") == nullptr) co_return InvalidField("metadata", "is required");
  json::object metadata;
  AG_CO_TRYV(openai::ReadMetadata(body, metadata));
  found.metadata_json = json::serialize(metadata);
  AG_CO_TRYV(co_await store_.Run(
      [&](Store& s) { return s.SetConversationMetadata(found.id, found.metadata_json); }));
  co_return ObjectOf(found);
}

asio::awaitable<Result<json::object>> OpenAiConversations::Delete(const std::string& id,
                                                                  std::int64_t now_ms) {
  AG_CO_TRY(const auto found, co_await Find(id));
  AG_CO_TRY(const bool deleted,
            co_await store_.Run([&](Store& s) { return s.DeleteConversation(found.id, now_ms); }));
  if (!deleted) co_return NoSuchConversation(id);
  co_return openai::DeletedConversation(id);
}

asio::awaitable<Result<json::object>> OpenAiConversations::AddItems(const std::string& id,
                                                                    const json::object& body,
                                                                    std::int64_t now_ms) {
  const json::value* given = body.if_contains("items");
  if (given == nullptr) co_return InvalidField("items", "is required");
  AG_CO_TRY(const auto items, openai::ReadItems(*given, "items"));
  AG_CO_TRY(const auto found, co_await Find(id));
  const auto messages = MessagesOf(items, now_ms);
  AG_CO_TRY(const auto written, co_await store_.Run([&](Store& s) {
    return s.AppendConversationItems(found.id, messages, now_ms);
  }));
  json::array data;
  for (const auto& m : written) data.push_back(ItemOf(found.id, m));
  co_return openai::ItemList(std::move(data), false);
}

asio::awaitable<Result<json::object>> OpenAiConversations::DeleteItem(const std::string& id,
                                                                      const std::string& item_id,
                                                                      std::int64_t now_ms) {
  AG_CO_TRY(const auto found, co_await Find(id));
  const auto seq = SeqIn(found.id, item_id);
  if (!seq) co_return NoSuchItem(item_id);
  AG_CO_TRY(const bool deleted, co_await store_.Run([&](Store& s) {
    return s.DeleteConversationItem(found.id, *seq, now_ms);
  }));
  if (!deleted) co_return NoSuchItem(item_id);
  co_return ObjectOf(found);
}

asio::awaitable<Result<json::object>> OpenAiConversations::ListItems(const std::string& id,
                                                                     const ItemListQuery& query) {
  AG_CO_TRY(const auto found, co_await Find(id));
  ItemPage page{std::nullopt, query.limit + 1, query.descending};  // one more: whether more follow
  if (query.after) {
    page.after_seq = SeqIn(found.id, *query.after);
    if (!page.after_seq) co_return InvalidField("after", "must name an item of this conversation");
  }
  AG_CO_TRY(auto messages,
            co_await store_.Run([&](Store& s) { return s.ConversationItems(found.id, page); }));
  const bool has_more = messages.size() > static_cast<std::size_t>(query.limit);
  if (has_more) messages.pop_back();
  json::array data;
  for (const auto& m : messages) data.push_back(ItemOf(found.id, m));
  co_return openai::ItemList(std::move(data), has_more);
}

asio::awaitable<Result<json::object>> OpenAiConversations::ReadItem(const std::string& id,
                                                                    const std::string& item_id) {
  AG_CO_TRY(const auto message, co_await FindItem(id, item_id));
  co_return ItemOf(id, message);
}

asio::awaitable<Result<MessageRecord>> OpenAiConversations::FindItem(const std::string& id,
                                                                     const std::string& item_id) {
  AG_CO_TRY(const auto found, co_await Find(id));
  const auto seq = SeqIn(found.id, item_id);
  if (!seq) co_return NoSuchItem(item_id);
  const ItemPage page{*seq - 1, 1, false};
  AG_CO_TRY(auto messages,
            co_await store_.Run([&](Store& s) { return s.ConversationItems(found.id, page); }));
  if (messages.empty() || messages.front().seq != *seq) co_return NoSuchItem(item_id);
  co_return std::move(messages.front());
}

asio::awaitable<Result<void>> OpenAiConversations::BindForResponse(const std::string& id,
                                                                   const std::string& agent_id,
                                                                   const std::string& instance_id) {
  AG_CO_TRYV(co_await Authorize(tenants_, caller_, agent_id, "chat"));
  AG_CO_TRY(auto found, co_await Find(id));
  if (found.agent_id.empty()) {
    AG_CO_TRYV(co_await store_.Run(
        [&](Store& s) { return s.BindConversation(found.id, agent_id, instance_id); }));
    AG_CO_TRY(found, co_await Find(id));  // bound by this response, or by another first
  }
  if (found.agent_id != agent_id || found.instance_id != instance_id) {
    co_return InvalidField("conversation", "belongs to agent '" + found.agent_id +
                                               "': a response must name that agent as its model");
  }
  co_return Result<void>{};
}

}  // namespace agentgate
