#include "adapters/http_server/handlers/openai_common.hpp"

#include "adapters/http_server/handlers/admin_common.hpp"
#include "adapters/http_server/responses.hpp"
#include "domain/resource_ids.hpp"

#include <boost/json/object.hpp>

#include <chrono>

namespace agentgate::http {

namespace {

Response ErrorOf(const Error& error, openai::Surface surface) {
  const int status = HttpStatusOf(error.code);
  Response response =
      JsonResponse(status, boost::json::object{{"error", openai::ErrorObject(error, surface)}});
  if (error.retry_after_seconds)
    response.headers.emplace_back("Retry-After", std::to_string(*error.retry_after_seconds));
  if (openai::NotToBeRetried(status)) response.headers.emplace_back("x-should-retry", "false");
  return response;
}

}  // namespace

Response OpenAiError(const Error& error) {
  return ErrorOf(error, openai::Surface::kChatCompletions);
}

Response ResponsesError(const Error& error) {
  return ErrorOf(error, openai::Surface::kResponses);
}

std::int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

AnswerRenderer WholeStreamAnswer(StreamFormatOf format_of) {
  return [format_of = std::move(format_of)](const InvokeResult& result) {
    std::string out;
    format_of(result)->Frame(out, RunEvent{0, "run.completed", InvokeBodyText(result)});
    return StoredResponse{200, std::move(out)};
  };
}

Response ReplayedStream(StoredResponse& replay) {
  Response replayed;
  replayed.status = replay.status;
  replayed.body = std::move(replay.body);
  if (replayed.status == 200) replayed.content_type = "text/event-stream";
  replayed.headers.emplace_back("Idempotent-Replayed", "true");
  return replayed;
}

StreamShape OpenAiStreamShape(
    Response (*refuse)(const Error&),
    std::function<std::shared_ptr<StreamFormat>(const std::string& run_id)> format_of) {
  StreamShape shape;
  shape.refuse = refuse;
  shape.replayed = ReplayedStream;
  shape.format_of = std::move(format_of);
  return shape;
}

Result<ItemListQuery> ListQueryOf(const Request& r) {
  ItemListQuery query;
  AG_TRY(query.limit, PageSize(r, 20, 100));
  query.after = r.QueryParam("after");
  if (const auto order = r.QueryParam("order")) {
    if (*order != "asc" && *order != "desc") return InvalidField("order", "must be asc or desc");
    query.descending = *order == "desc";
  }
  return query;
}

std::string RunIdOf(const InvokeResult& result) {
  if (!result.run_id.empty()) return result.run_id;
  return ids::RunOfTurn(result.turn_id);
}

std::string ModelOf(const InvokeInput& call) {
  return call.request.instance_id ? call.agent_id + ":" + *call.request.instance_id : call.agent_id;
}

}  // namespace agentgate::http
