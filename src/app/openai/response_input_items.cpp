// GET /v1/responses/{id}/input_items (docs/openai.md, "The response"): the messages a stored
// response's turn wrote before its reply, as conversation items (msg_<conversation hex>_<seq>).
#include "app/openai/conversations.hpp"
#include "app/openai/responses.hpp"
#include "domain/agent/stored_messages.hpp"
#include "domain/openai/conversation_objects.hpp"
#include "domain/resource_ids.hpp"

#include <algorithm>

namespace agentgate {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// The page `query` asks for of `inputs` (oldest first), and whether more follow it.
Result<json::object> PageOf(const std::string& conversation_id, std::vector<MessageRecord> inputs,
                            const ItemListQuery& query) {
  if (query.descending) std::reverse(inputs.begin(), inputs.end());
  auto from = inputs.begin();
  if (query.after) {
    const auto place = ids::ItemPlaceOf(*query.after);
    from = std::find_if(inputs.begin(), inputs.end(), [&](const MessageRecord& m) {
      return place && place->conversation_id == conversation_id && place->seq == m.seq;
    });
    if (from == inputs.end())
      return InvalidField("after", "must name an input item of this response");
    ++from;
  }
  json::array data;
  for (auto it = from; it != inputs.end() && std::cmp_less(data.size(), query.limit); ++it)
    data.push_back(
        openai::ItemObject(ids::ItemOf(conversation_id, it->seq), {it->role, it->content}));
  const bool has_more =
      std::cmp_less(std::distance(inputs.begin(), from) + data.size(), inputs.size());
  return openai::ItemList(std::move(data), has_more);
}

}  // namespace

asio::awaitable<Result<json::object>> ReadInputItems(StoreRunner& store, TenantDirectory& tenants,
                                                     Runs& runs, const Caller& caller,
                                                     const std::string& response_id,
                                                     const ItemListQuery& query) {
  auto answered = co_await AnsweringTurn(store, tenants, caller, response_id);
  if (!answered) {
    if (answered.error().code != ErrorCode::kNotFound) co_return answered.error();
    // No answering turn: a run that has not answered yet, or no response at all (404).
    AG_CO_TRYV(co_await ReadResponse(store, runs, caller, response_id));
    co_return Error(ErrorCode::kConflict, "response '" + response_id +
                                              "' has not answered yet: its input items are "
                                              "read once it has");
  }
  std::vector<MessageRecord> inputs = std::move(answered->messages);
  // Its output: the calls of the caller's functions, and its reply.
  while (!inputs.empty() && inputs.back().role == stored_messages::kFunctionCall) inputs.pop_back();
  if (!inputs.empty() && inputs.back().role == "assistant") inputs.pop_back();
  co_return PageOf(answered->turn.conversation_id, std::move(inputs), query);
}

}  // namespace agentgate
