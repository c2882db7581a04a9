#include "adapters/http_server/handlers/streamed_call.hpp"

#include "adapters/http_server/handlers/invoke_common.hpp"

#include <boost/asio/this_coro.hpp>

namespace agentgate::http {

namespace asio = boost::asio;

asio::awaitable<Response> StreamCall(RouteDeps& deps, Request& r, const InvokeCall& call,
                                     const StreamShape& shape) {
  const auto executor = co_await asio::this_coro::executor;
  auto ticket = deps.streams.Enter(call.caller, call.agent_id, "", executor);
  if (!ticket) co_return shape.refuse(ticket.error());
  // Its stream runs its turn, unless a hang-up cancels it: its run then runs beside the stream,
  // which is raced with the hang-up.
  StreamAnswer begun = co_await deps.runs.Stream(call, shape.notify, !shape.cancel_on_hang_up);
  if (auto* replay = std::get_if<StoredResponse>(&begun.answer)) co_return shape.replayed(*replay);
  const auto& run = std::get<Result<RunRecord>>(begun.answer);
  if (!run) co_return shape.refuse(run.error());
  auto format = shape.format_of ? shape.format_of(run->id) : nullptr;
  Response response = begun.handed ? OwnRunStream(deps, std::move(begun.handed), std::move(*ticket),
                                                  std::move(format))
                                   : RunEventStream(deps, run->id, 0, std::move(*ticket), r,
                                                    shape.cancel_on_hang_up, std::move(format));
  if (shape.located) response.headers.emplace_back("Location", RunLocation(deps, run->id));
  co_return response;
}

}  // namespace agentgate::http
