#pragma once
// What a paused run waits for, asked of the MCP client that started it when it takes form
// elicitations (docs/mcp.md, "Elicitation"): each pending call as one form (an approval as a
// yes/no with an optional reason; a question as its answer schema when that is a flat form, else
// as one `answer` field, JSON text under a schema), and the client's answers read back as the
// decisions and answers a person sends to POST /api/runs/{id}/approvals. Pure.

#include "domain/agent/model_types.hpp"
#include "domain/agent/turn.hpp"
#include "domain/error.hpp"
#include "domain/runs/paused_turn.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate::mcp {

// How a need's form reads back into the run's answer.
enum class FormShape {
  kApproval,         // {approve, reason?}
  kWholeAnswer,      // the question's own flat object schema: the content is the answer
  kAnswerField,      // {answer}: no answer schema, any text
  kJsonAnswerField,  // {answer} as JSON text: a schema no form can hold (arrays, nesting)
};

struct ElicitedNeed {
  std::string call_id;
  FormShape shape = FormShape::kApproval;
  bool operator==(const ElicitedNeed&) const = default;
};

// Whether a 2026-07-28 request's `_meta` client capabilities take form elicitations
// (`elicitation: {}` or one naming `form`).
bool AcceptsFormElicitation(const boost::json::object& params);

struct Elicitation {
  boost::json::object input_requests;  // keyed by call id: {method: elicitation/create, params}
  std::vector<ElicitedNeed> needs;
};
// 2025 revisions: whether an initialize's client capabilities take form elicitations, and the
// session id that says so (nothing is kept of a session: its id carries what the server needs).
bool InitializeDeclaresForms(const boost::json::object& initialize_params);
std::string LegacySessionId(std::string random, bool takes_forms);
bool LegacySessionTakesForms(std::string_view session_id);
// The 2025 elicitation/create request's params (`mode` only from 2025-11-25 on).
boost::json::object LegacyElicitParams(const boost::json::object& input_request,
                                       std::string_view version);

// A paused answer's `pending_actions` (docs/runs.md, "What a run needs": {call_id, kind, tool,
// arguments, question?, answer_schema?}) as form elicitations.
Elicitation ElicitationOf(std::string_view agent_id, const boost::json::array& pending_actions);

// The 2026-07-28 `input_required` result.
boost::json::object InputRequiredResult(boost::json::object input_requests,
                                        std::string request_state);

// A retried call's `inputResponses`, one per need and nothing else, as the run's decisions: an
// accepted approval form decides by its `approve`; an accepted question form answers; `decline`
// and `cancel` deny a call, or tell the model the user did not answer. Errors name the field.
Result<ApprovalRequest> ReadInputResponses(const boost::json::value* responses,
                                           const std::vector<ElicitedNeed>& needs);

// The needs as the sealed request state keeps them, and back.
boost::json::array NeedsJson(const std::vector<ElicitedNeed>& needs);
Result<std::vector<ElicitedNeed>> ParseNeeds(const boost::json::value& json);

// Outbound: an external server's tools/call result. Not input_required: nullopt. One form
// elicitation with its request state: the question the run asks its user. Anything else (URL
// elicitation, sampling, roots, several requests, no request state) is an error the model reads.
std::optional<Result<ToolAsk>> ReadInputRequired(const boost::json::value& result);
// The retried call's params beside name and arguments: the user's form content (an object), or
// nullopt when the user declined.
void AddInputResponse(boost::json::object& params, const ToolAsk& ask,
                      const std::optional<boost::json::value>& content);

}  // namespace agentgate::mcp
