// The Conversations API (docs/openai.md, "Conversations"): a conversation created, read, given
// new metadata or deleted, and its items listed, added, read or deleted, over the stored
// conversations of the key's organization and environment. Errors are OpenAI's.
#include "adapters/http_server/handlers/admin_common.hpp"
#include "adapters/http_server/handlers/openai_common.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/openai/conversations.hpp"

#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

std::int64_t NowMs() {
  return NowSeconds() * 1000;
}

// A body that must be a JSON object; an empty one is {} where `empty_ok`.
Result<json::object> ObjectBody(const Request& r, bool empty_ok) {
  if (empty_ok && r.body.empty()) return json::object{};
  AG_TRY(auto body, ParseJsonBody(r));
  if (!body.is_object()) return InvalidField("body", "must be a JSON object");
  return std::move(body.as_object());
}

// Authenticates the caller, then answers what `use` makes of the conversations it may use.
template <typename Use>
asio::awaitable<Response> OnConversations(RouteDeps& deps, Request& r, Use use) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return ResponsesError(caller.error());
  OpenAiConversations conversations(deps.store, deps.tenants, *caller);
  Result<json::object> answer = co_await use(conversations);
  if (!answer) co_return ResponsesError(answer.error());
  co_return JsonResponse(200, *answer);
}

asio::awaitable<Response> Create(RouteDeps& deps, Request& r) {
  return OnConversations(deps, r,
                         [&r](OpenAiConversations& c) -> asio::awaitable<Result<json::object>> {
                           AG_CO_TRY(const auto body, ObjectBody(r, /*empty_ok=*/true));
                           co_return co_await c.Create(body, NowMs());
                         });
}

asio::awaitable<Response> Update(RouteDeps& deps, Request& r) {
  return OnConversations(deps, r,
                         [&r](OpenAiConversations& c) -> asio::awaitable<Result<json::object>> {
                           AG_CO_TRY(const auto body, ObjectBody(r, /*empty_ok=*/false));
                           co_return co_await c.Update(r.Param("conversation_id"), body);
                         });
}

asio::awaitable<Response> AddItems(RouteDeps& deps, Request& r) {
  return OnConversations(deps, r,
                         [&r](OpenAiConversations& c) -> asio::awaitable<Result<json::object>> {
                           AG_CO_TRY(const auto body, ObjectBody(r, /*empty_ok=*/false));
                           co_return co_await c.AddItems(r.Param("conversation_id"), body, NowMs());
                         });
}

asio::awaitable<Response> ListItems(RouteDeps& deps, Request& r) {
  return OnConversations(deps, r,
                         [&r](OpenAiConversations& c) -> asio::awaitable<Result<json::object>> {
                           AG_CO_TRY(const auto query, ListQueryOf(r));
                           co_return co_await c.ListItems(r.Param("conversation_id"), query);
                         });
}

}  // namespace

void AddOpenAiConversationRoutes(Router& router, RouteDeps& deps) {
  router.Add(
      "POST", "/v1/conversations", [&deps](Request& r) { return Create(deps, r); }, ResponsesError);
  router.Add(
      "GET", "/v1/conversations/{conversation_id}",
      [&deps](Request& r) {
        return OnConversations(
            deps, r, [&r](OpenAiConversations& c) { return c.Read(r.Param("conversation_id")); });
      },
      ResponsesError);
  router.Add(
      "POST", "/v1/conversations/{conversation_id}",
      [&deps](Request& r) { return Update(deps, r); }, ResponsesError);
  router.Add(
      "DELETE", "/v1/conversations/{conversation_id}",
      [&deps](Request& r) {
        return OnConversations(deps, r, [&r](OpenAiConversations& c) {
          return c.Delete(r.Param("conversation_id"), NowMs());
        });
      },
      ResponsesError);
  router.Add(
      "GET", "/v1/conversations/{conversation_id}/items",
      [&deps](Request& r) { return ListItems(deps, r); }, ResponsesError);
  router.Add(
      "POST", "/v1/conversations/{conversation_id}/items",
      [&deps](Request& r) { return AddItems(deps, r); }, ResponsesError);
  router.Add(
      "GET", "/v1/conversations/{conversation_id}/items/{item_id}",
      [&deps](Request& r) {
        return OnConversations(deps, r, [&r](OpenAiConversations& c) {
          return c.ReadItem(r.Param("conversation_id"), r.Param("item_id"));
        });
      },
      ResponsesError);
  router.Add(
      "DELETE", "/v1/conversations/{conversation_id}/items/{item_id}",
      [&deps](Request& r) {
        return OnConversations(deps, r, [&r](OpenAiConversations& c) {
          return c.DeleteItem(r.Param("conversation_id"), r.Param("item_id"), NowMs());
        });
      },
      ResponsesError);
}

}  // namespace agentgate::http
