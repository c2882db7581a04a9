// /admin/v1/orgs/{org}/memories: the long-term memory of shared-memory agents, so an operator can
// see what an agent remembers and remove a wrong fact (or a whole group's).
#include "adapters/http_server/handlers/admin_common.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

MemoryFilter FilterOf(const Request& r) {
  return MemoryFilter{r.Param("org"), r.QueryParam("agent"), r.QueryParam("env"),
                      r.QueryParam("group_key")};
}

json::object MemoryJson(const MemoryEntry& m) {
  return json::object{{"id", m.id},
                      {"env", m.scope.env},
                      {"agent_id", m.scope.agent_id},
                      {"group_key", m.scope.group_key},
                      {"fact", m.fact},
                      {"created_at", IsoTime(m.created_at_ms)}};
}

}  // namespace

void AddAdminMemoryRoutes(Router& router, RouteDeps& deps) {
  router.Add("GET", "/admin/v1/orgs/{org}/memories",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto before, PositiveInteger(r.QueryParam("before"), "before"));
               AG_CO_TRY(const int count, PageSize(r, 100, 100000));
               const MemoryFilter filter = FilterOf(r);
               AG_CO_TRY(auto page, co_await deps.admin.ListMemories(filter, before, count));
               json::array listed;
               for (const auto& m : page.memories) listed.push_back(MemoryJson(m));
               json::object out{{"memories", std::move(listed)}};
               out["next_before"] =
                   page.next_before ? json::value(*page.next_before) : json::value(nullptr);
               co_return JsonResponse(200, out);
             }));

  router.Add("DELETE", "/admin/v1/orgs/{org}/memories",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               // Named, not temporaries: GCC 12 destroys temporaries inside co_await twice.
               const MemoryFilter filter = FilterOf(r);
               const std::optional<std::int64_t> no_id;
               AG_CO_TRY(auto deleted, co_await deps.admin.DeleteMemories(filter, no_id));
               co_return JsonResponse(200, json::object{{"deleted", deleted}});
             }));

  router.Add(
      "DELETE", "/admin/v1/orgs/{org}/memories/{id}",
      AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
        AG_CO_TRY(auto id, PositiveInteger(r.Param("id"), "id"));
        const MemoryFilter whole_org{r.Param("org"), std::nullopt, std::nullopt, std::nullopt};
        AG_CO_TRY(auto deleted, co_await deps.admin.DeleteMemories(whole_org, id));
        co_return JsonResponse(200, json::object{{"deleted", deleted}});
      }));
}

}  // namespace agentgate::http
