"""Questions to the user (issue 76 §3): a version with "ask_user": true offers the model the
built-in ask_user tool; its call pauses the run with a `question` need (terminated_reason
input_required), answered at POST /api/runs/{id}/approvals with `answers`, validated against the
question's answer_schema, and the model goes on with the answer as the tool's result; unanswered, the
run expires as an approval does."""
import json

import pytest

from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text, openai_tools
from test_approvals import approver, headers, start
from test_runs import wait_status

ORDER = {"type": "object", "properties": {"order": {"type": "string", "pattern": "^A-[0-9]+$"}},
         "required": ["order"], "additionalProperties": False}


def ask(tenant, llm, schema=ORDER, create=True):
    if create:
        tenant.agent("desk", ask_user=True)
    question = {"question": "Which order?", **({"answer_schema": schema} if schema else {})}
    llm.push(openai_tools([("ask_user", question)], text="I need the order."))
    status, _, paused = tenant.invoke("desk", {"message": "refund my order"})
    assert status == 200, paused
    return paused


def answer(tenant, token, run_id, answers):
    return tenant.server.request("POST", f"/api/runs/{run_id}/approvals", {"answers": answers},
                                 headers(tenant, token), timeout=30)


def test_a_question_pauses_the_run_and_its_answer_goes_on(start_server, llm):
    tenant = start(start_server, llm)
    paused = ask(tenant, llm)
    assert paused["terminated_reason"] == "input_required", paused
    [need] = paused["pending_actions"]
    assert need["kind"] == "question" and need["question"] == "Which order?", need
    assert need["answer_schema"] == ORDER and need["tool"] == "ask_user"
    assert "ask_user" in [t["function"]["name"] for t in llm.requests[-1]["body"]["tools"]]
    run_id = paused["run_id"]
    # An answer outside its schema is a 400 naming it; approving a question is not answering it.
    status, _, body = answer(tenant, tenant.token, run_id, [{"call_id": need["call_id"], "answer": {"order": "B"}}])
    assert status == 400 and "answers[0].answer" in error_of(body)["message"], body
    status, _, body = tenant.server.request(
        "POST", f"/api/runs/{run_id}/approvals",
        {"decisions": [{"call_id": need["call_id"], "approve": True}]}, headers(tenant, approver(tenant, "desk")))
    assert status == 400, body
    # An answer needs `chat`: a token with only `approve` may not give one.
    status, _, body = answer(tenant, approver(tenant, "desk"), run_id,
                             [{"call_id": need["call_id"], "answer": {"order": "A-7"}}])
    assert status == 403, body
    llm.push(openai_text("Refunding A-7."))
    status, _, done = answer(tenant, tenant.token, run_id, [{"call_id": need["call_id"], "answer": {"order": "A-7"}}])
    assert status == 200 and done["response"] == "Refunding A-7." and done["terminated_reason"] is None, done
    results = [m["content"] for m in llm.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert [json.loads(r) for r in results] == [{"order": "A-7"}], results
    assert wait_status(tenant, run_id, {"completed"})["status"] == "completed"


def test_a_bad_question_is_the_models_tool_error_and_a_plain_answer_is_text(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("desk", ask_user=True)
    llm.push(openai_tools([("ask_user", {"question": "Which?", "answer_schema": {"type": "string"}})]),
             openai_text("Never mind."))
    status, _, body = tenant.invoke("desk", {"message": "hi"})
    assert status == 200 and body["response"] == "Never mind." and body["terminated_reason"] is None, body
    [told] = [m["content"] for m in llm.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert told.startswith("error: ") and "answer_schema" in told, told
    paused = ask(tenant, llm, schema=None, create=False)
    need = paused["pending_actions"][0]
    assert need["answer_schema"] is None
    llm.push(openai_text("Thanks."))
    status, _, done = answer(tenant, tenant.token, paused["run_id"], [{"call_id": need["call_id"], "answer": "A-9"}])
    assert status == 200 and done["response"] == "Thanks.", done
    assert [m["content"] for m in llm.requests[-1]["body"]["messages"] if m["role"] == "tool"] == ["A-9"]


def test_an_unanswered_question_expires(start_server, llm):
    tenant = start(start_server, llm, "[runs]\napproval_timeout_seconds = 1\n")
    run_id = ask(tenant, llm)["run_id"]
    run = wait_status(tenant, run_id, {"failed"}, within=6.0)
    assert run["status"] == "failed" and run["error"]["code"] == "approval_expired", run


def test_an_mcp_client_is_told_what_the_run_waits_for_and_where_to_answer(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("desk", ask_user=True)
    llm.push(openai_tools([("ask_user", {"question": "Which order?"})]))
    h = headers(tenant, tenant.token)
    h["mcp-protocol-version"] = "2025-11-25"
    h["mcp-session-id"] = "s-1"
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "desk", "arguments": {"message": "refund my order"}}}
    status, _, out = tenant.server.request("POST", "/mcp", call, h)
    assert status == 200, out
    result = out["result"]
    assert result["isError"] is True
    structured = result["structuredContent"]
    assert structured["terminated_reason"] == "input_required"
    assert structured["pending_actions"][0]["kind"] == "question"
    text = result["content"][0]["text"]
    assert "input_required" in text and f"/api/runs/{structured['run_id']}/approvals" in text, text


@pytest.mark.postgres
def test_a_question_asked_on_one_server_is_answered_on_the_other(start_server, llm):
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, "AGENTGATE_STORE_URL": first.store_url})
    tenant = Tenant(first)
    paused = ask(tenant, llm)
    first.stop()  # nothing of the run waits on the server it paused on
    other = tenant.via(second)
    llm.push(openai_text("Refunding A-7."))
    need = paused["pending_actions"][0]
    status, _, done = answer(other, tenant.token, paused["run_id"], [{"call_id": need["call_id"], "answer": {"order": "A-7"}}])
    assert status == 200 and done["response"] == "Refunding A-7.", done
