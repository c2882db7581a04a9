#pragma once
// A message that answers a task waiting for its caller (INPUT_REQUIRED, docs/a2a.md "Answering a
// task"): its decisions and answers, read as POST /api/runs/{id}/approvals reads them. Pure.

#include "domain/a2a/protocol.hpp"
#include "domain/runs/paused_turn.hpp"

#include <boost/json/array.hpp>

#include <variant>

namespace agentgate::a2a {

// `parts`: the message's; `pending`: the task's pending_actions (typed: call_id, kind). A `data`
// part {"decisions": [...], "answers": [...]} is read as the approvals endpoint's body (its errors
// name the part's field). Text never approves a call: a message of text alone answers the task's
// one question when a question is all it waits for, and is refused otherwise.
std::variant<ApprovalRequest, ProtocolError> ReadTaskAnswer(const boost::json::array& parts,
                                                            const boost::json::array& pending);

}  // namespace agentgate::a2a
