#pragma once
// The Responses API's reads (docs/openai.md, "Responses"): the conversation a previous response
// continues, and a response read back from the run it ran as. A response id is "resp_<hex>"
// (openai/response_request): its answering turn is "turn_<hex>", its run, when it has one,
// "run_<hex>".

#include "app/access/tenant_directory.hpp"
#include "app/runs/runs.hpp"
#include "domain/openai/response_shape.hpp"

#include <boost/json/object.hpp>

#include <string>

namespace agentgate {

// Where a call continuing from a response goes on: the response's conversation, and the turn
// whose reply must still be its last (InvokeRequest::after_turn_id).
struct ContinuedResponse {
  std::string conversation_id;
  std::string turn_id;
};

// 404 not_found for no response of the caller's organization and environment, 400 for one not
// stored, 409 conflict for one whose run has not answered (queued, running, paused), 409
// previous_response_not_latest for one its conversation has moved on from. Looked at again once
// the turn holds its place on the conversation (app/turn_prepare), so two calls continuing from
// one response cannot both run. `field` names where the response was named
// ("previous_response_id", or an input item that references its message).
boost::asio::awaitable<Result<ContinuedResponse>> ContinuedFrom(StoreRunner& store, Runs& runs,
                                                                const Caller& caller,
                                                                const std::string& response_id,
                                                                const std::string& field);

// The header with what its response was asked (Store::GetResponseAsk), when the caller's
// organization and environment kept one for it.
boost::asio::awaitable<Result<void>> WithAsk(StoreRunner& store, const Caller& caller,
                                             openai::ResponseHeader& header);

// A response read back (GET /v1/responses/{id}) from the run it ran as (a background or streamed
// response; a plain one has no run), as Runs::Get reads runs, with what it was asked: 404
// not_found for none the caller may read.
boost::asio::awaitable<Result<boost::json::object>> ReadResponse(StoreRunner& store, Runs& runs,
                                                                 const Caller& caller,
                                                                 const std::string& response_id);
// GET /v1/responses/{id}: ReadResponse, else, for a plain stored response (no run), its turn and
// the messages it wrote. 404 not_found for a response the caller may not read (another
// organization's or environment's, an agent it has no chat grant on), one made with "store":
// false, or one retention removed.
boost::asio::awaitable<Result<boost::json::object>> ReadStoredResponse(
    StoreRunner& store, TenantDirectory& tenants, Runs& runs, const Caller& caller,
    const std::string& response_id);
// Cancels it as Runs::Cancel cancels its run (409 run_ended for one that answered), and reads it.
boost::asio::awaitable<Result<boost::json::object>> CancelResponse(StoreRunner& store, Runs& runs,
                                                                   const Caller& caller,
                                                                   const std::string& response_id);

// The turn that answered a stored response, and the messages it wrote (its input, then its
// reply): 404 not_found as ReadStoredResponse, and for a response whose turn has not answered.
struct AnsweredTurn {
  TurnRecord turn;
  std::vector<MessageRecord> messages;
};
boost::asio::awaitable<Result<AnsweredTurn>> AnsweringTurn(StoreRunner& store,
                                                           TenantDirectory& tenants,
                                                           const Caller& caller,
                                                           const std::string& response_id);

// GET /v1/responses/{id}/input_items: the messages its turn wrote before its reply (the user's,
// and the history a resent input seeded), a page of them as `query` asks. 404 as
// ReadStoredResponse; 409 conflict for a response that has not answered yet.
struct ItemListQuery;
boost::asio::awaitable<Result<boost::json::object>> ReadInputItems(StoreRunner& store,
                                                                   TenantDirectory& tenants,
                                                                   Runs& runs, const Caller& caller,
                                                                   const std::string& response_id,
                                                                   const ItemListQuery& query);

// The Response a run's record makes: queued, in_progress, completed or incomplete (its answer, or
// what waits for approval), failed (its error), cancelled.
boost::json::object ResponseOfRun(const RunRecord& run, const openai::ResponseHeader& header);

}  // namespace agentgate
