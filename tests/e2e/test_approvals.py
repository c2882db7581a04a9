"""Tool approvals (docs/daemon.md, Tool approvals): a run pauses before calls that need a person's
approval, is decided with POST /api/runs/{run_id}/approvals, and goes on, through the binary on
SQLite, and a run decided on another server on PostgreSQL."""
import json
import threading
import time

import pytest


from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import FakeToolServer, openai_text, openai_tools
from test_runs import get_run, wait_for, wait_status

TOOL = {"type": "http", "description": "Orders", "parameters": {"type": "object"}}


@pytest.fixture
def tools():
    server = FakeToolServer()
    yield server
    server.close()


def start(start_server, llm, extra=""):
    server = start_server(config_for(llm) + extra, env={"FAKE_LLM_KEY": API_KEY})
    return Tenant(server)


def shop(tenant, tools, approval="always", method="POST"):
    return tenant.agent("shop", tools=[
        {**TOOL, "name": "refund", "url": f"http://127.0.0.1:{tools.port}/refund", "method": method,
         "approval": approval},
        {**TOOL, "name": "status", "url": f"http://127.0.0.1:{tools.port}/status", "method": "GET"}])


def approver(tenant, agent_id="shop", permissions=("approve",)):
    """A token of the org with these permissions on the agent: its token string."""
    _, _, tok = tenant.server.admin("POST", f"/orgs/{tenant.org}/tokens", {"name": "ops"})
    tenant.server.admin("PUT", f"/orgs/{tenant.org}/grants",
                        {"token_id": tok["id"], "agent_id": agent_id, "permissions": list(permissions)})
    return tok["token"]


def headers(tenant, token):
    return {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
            "fl-api-token": token}


def decide(tenant, token, run_id, decisions, **extra):
    return tenant.server.request("POST", f"/api/runs/{run_id}/approvals",
                                 {"decisions": decisions, **extra}, headers(tenant, token), timeout=30)


def tool_messages(request):
    return [m["content"] for m in request["body"]["messages"] if m["role"] == "tool"]


def pause_a_refund(tenant, llm, body=None):
    llm.push(openai_tools([("refund", {"order": "A-1"}), ("status", {"order": "A-1"})],
                          input_tokens=100, output_tokens=10))
    status, _, paused = tenant.invoke("shop", body or {"message": "refund A-1"})
    assert status == 200, paused
    return paused


def test_a_plain_call_pauses_before_the_step_and_an_approval_runs_it_once(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools)
    paused = pause_a_refund(tenant, llm)
    assert paused["terminated_reason"] == "approval_required"
    run_id = paused["run_id"]
    assert run_id.startswith("run_")
    assert paused["pending_actions"] == [{"call_id": "call_0", "kind": "approval", "tool": "refund", "arguments": {"order": "A-1"}}]
    assert tools.calls == []  # not even the GET of the same step ran
    _, _, run = get_run(tenant, run_id)
    assert run["status"] == "requires_action" and run["pending_actions"] == paused["pending_actions"]
    assert run["expires_at"] is not None

    llm.push(openai_text("Refunded.", input_tokens=200, output_tokens=20))
    status, _, done = decide(tenant, approver(tenant), run_id, [{"call_id": "call_0", "approve": True}])
    assert status == 200, done
    assert done["response"] == "Refunded." and done["terminated_reason"] is None
    assert sorted(c["path"].split("?")[0] for c in tools.calls) == ["/refund", "/status"]
    results = tool_messages(llm.requests[-1])
    assert len(results) == 2 and all("shipped" in r for r in results)
    # The answer counts the whole run: both model calls and what they cost.
    assert done["usage"]["model_calls"] == 2
    assert done["usage"]["input_tokens"] == 300 and done["usage"]["output_tokens"] == 30
    assert done["usage"]["cost_usd"] == pytest.approx((300 * 1000 + 30 * 2000) / 1e6)
    run = wait_status(tenant, run_id, {"completed"})
    assert run["status"] == "completed" and run["result"] == done
    usage = tenant.settled_usage()
    assert usage["total_spent_usd"] == pytest.approx(done["usage"]["cost_usd"])  # spent once


def test_an_approval_with_edited_arguments_runs_the_tool_once_with_them(start_server, llm, tools):
    tenant = start(start_server, llm)
    tenant.agent("shop", tools=[
        {**TOOL, "name": "refund", "url": f"http://127.0.0.1:{tools.port}/refund", "method": "POST",
         "approval": "always",
         "parameters": {"type": "object", "properties": {"order": {"type": "string"}},
                        "required": ["order"], "additionalProperties": False}},
        {**TOOL, "name": "status", "url": f"http://127.0.0.1:{tools.port}/status", "method": "GET"}])
    run_id = pause_a_refund(tenant, llm)["run_id"]
    token = approver(tenant)
    # Arguments that break the tool's parameters, or on a denial, are 400s naming them.
    status, _, refused = decide(tenant, token, run_id,
                                [{"call_id": "call_0", "approve": True, "arguments": {"amount": 5}}])
    assert status == 400 and "decisions[0].arguments" in error_of(refused)["message"], refused
    status, _, refused = decide(tenant, token, run_id,
                                [{"call_id": "call_0", "approve": False, "arguments": {"order": "A-2"}}])
    assert status == 400 and "decisions[0].arguments" in error_of(refused)["message"], refused
    assert tools.calls == []
    llm.push(openai_text("Refunded A-2."))
    status, _, done = decide(tenant, token, run_id,
                             [{"call_id": "call_0", "approve": True, "arguments": {"order": "A-2"}}])
    assert status == 200 and done["response"] == "Refunded A-2.", done
    refunds = [c for c in tools.calls if c["path"].startswith("/refund")]
    assert len(refunds) == 1 and json.loads(refunds[0]["body"]) == {"order": "A-2"}, tools.calls
    # The model is told what ran; its own call keeps the arguments it wrote.
    sent = llm.requests[-1]["body"]["messages"]
    [call] = [c for m in sent for c in m.get("tool_calls") or [] if c["function"]["name"] == "refund"]
    assert json.loads(call["function"]["arguments"]) == {"order": "A-1"}
    assert any('{"order":"A-2"}' in r for r in tool_messages(llm.requests[-1])), sent


def test_a_denied_call_is_told_to_the_model_and_never_runs(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools)
    run_id = pause_a_refund(tenant, llm)["run_id"]
    llm.push(openai_text("I could not refund it."))
    status, _, done = decide(tenant, approver(tenant), run_id,
                             [{"call_id": "call_0", "approve": False, "reason": "over the limit"}])
    assert status == 200 and done["response"] == "I could not refund it.", done
    assert [c["path"].split("?")[0] for c in tools.calls] == ["/status"]
    assert tool_messages(llm.requests[-1])[0] == "denied by an operator: over the limit"


def test_two_approvals_at_once_run_the_call_once_and_the_second_gets_409(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools)
    run_id = pause_a_refund(tenant, llm)["run_id"]
    token = approver(tenant)
    llm.push(dict(openai_text("Refunded."), delay=0.5))
    answers = []

    def approve():
        answers.append(decide(tenant, token, run_id, [{"call_id": "call_0", "approve": True}]))

    threads = [threading.Thread(target=approve) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a[0] for a in answers) == [200, 409], answers
    refused = next(a for a in answers if a[0] == 409)
    assert error_of(refused[2])["code"] == "run_not_paused"
    assert [c["path"].split("?")[0] for c in tools.calls].count("/refund") == 1


def test_deciding_needs_the_approve_grant_and_bad_decisions_change_nothing(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools)
    run_id = pause_a_refund(tenant, llm)["run_id"]
    ok = [{"call_id": "call_0", "approve": True}]
    status, _, body = decide(tenant, tenant.token, run_id, ok)  # chat alone
    assert status == 403 and "approve" in error_of(body)["message"]
    token = approver(tenant)
    # An approver cannot chat with the agent on that grant alone.
    status, _, _ = tenant.server.request("POST", "/api/agents/shop/invoke", {"message": "hi"},
                                         headers(tenant, token))
    assert status == 403
    for decisions, field in [([{"call_id": "call_9", "approve": True}], "decisions[0].call_id"),
                             ([{"call_id": "call_0"}], "decisions[0].approve"),
                             ([], "decisions"),
                             ([{"call_id": "call_0", "approve": True}, {"call_id": "call_0", "approve": True}],
                              "decisions[1].call_id")]:
        status, _, body = decide(tenant, token, run_id, decisions)
        assert status == 400 and field in error_of(body)["message"], (decisions, body)
    status, _, body = decide(tenant, token, "run_nope", ok)
    assert status == 404 and error_of(body)["code"] == "run_not_found"
    assert tools.calls == []
    assert get_run(tenant, run_id)[2]["status"] == "requires_action"
    # Decided once; a decision for a run that is no longer paused is 409.
    assert decide(tenant, token, run_id, ok)[0] == 200
    status, _, body = decide(tenant, token, run_id, ok)
    assert status == 409 and error_of(body)["code"] == "run_not_paused"


def test_writes_pause_for_a_post_tool_but_not_for_a_get_one(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools, approval="writes", method="GET")
    llm.push(openai_tools([("refund", {"order": "A-1"})]), openai_text("Looked it up."))
    status, _, body = tenant.invoke("shop", {"message": "look"})
    assert status == 200 and body["terminated_reason"] is None and "run_id" not in body, body
    assert [c["path"].split("?")[0] for c in tools.calls] == ["/refund"]
    tenant.server.admin("POST", "/orgs/acme/agents/shop/versions", {"config": {
        "name": "shop", "instructions": "x", "model": {"provider": "fake-openai", "name": "gpt-test"},
        "tools": [{**TOOL, "name": "refund", "url": f"http://127.0.0.1:{tools.port}/refund", "method": "POST",
                   "approval": "writes"}]}})
    tenant.server.admin("PUT", "/orgs/acme/agents/shop/deployments/prod", {"version": 2})
    llm.push(openai_tools([("refund", {"order": "A-1"})]))
    status, _, body = tenant.invoke("shop", {"message": "refund"})
    assert status == 200 and body["terminated_reason"] == "approval_required", body
    assert len(tools.calls) == 1


def test_a_paused_run_nobody_decides_expires(start_server, llm, tools):
    tenant = start(start_server, llm, "[runs]\napproval_timeout_seconds = 1\n")
    shop(tenant, tools)
    run_id = pause_a_refund(tenant, llm)["run_id"]
    run = wait_status(tenant, run_id, {"failed"}, within=6.0)
    assert run["status"] == "failed" and run["error"]["code"] == "approval_expired", run
    status, _, body = decide(tenant, approver(tenant), run_id, [{"call_id": "call_0", "approve": True}])
    assert status == 409 and error_of(body)["code"] == "run_not_paused"
    assert tools.calls == []


def test_a_stateful_turn_writes_its_conversation_only_once_it_completes(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools)
    paused = pause_a_refund(tenant, llm, {"message": "refund A-1", "stateful": True})
    conversation = paused["conversation_id"]
    assert conversation
    _, _, convo = tenant.conversation(conversation)
    assert convo["messages"] == []
    llm.push(openai_text("Refunded."))
    assert decide(tenant, approver(tenant), paused["run_id"], [{"call_id": "call_0", "approve": True}])[0] == 200
    _, _, convo = tenant.conversation(conversation)
    assert [m["content"] for m in convo["messages"]] == ["refund A-1", "Refunded."]


def test_a_background_run_pauses_and_an_approval_in_the_background_completes_it(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools)
    llm.push(openai_tools([("refund", {"order": "A-1"})]))
    status, _, queued = tenant.invoke("shop", {"message": "refund A-1", "background": True})
    assert status == 202, queued
    run_id = queued["run_id"]
    run = wait_status(tenant, run_id, {"requires_action"})
    assert run["pending_actions"][0]["tool"] == "refund"
    # Counted once its pause is told to its followers, a moment after its commit made it visible.
    wait_for(lambda: "agentgate_runs_paused_total 1" in tenant.server.request("GET", "/metrics")[2],
             within=5.0)
    _, _, raw = tenant.server.request("GET", f"/api/runs/{run_id}/events", headers=headers(tenant, tenant.token))
    types = [line.split(": ", 1)[1] for line in raw.splitlines() if line.startswith("event: ")]
    assert types[0] == "run.started" and types[-1] == "run.requires_action", types
    llm.push(openai_text("Refunded."))
    status, head, accepted = decide(tenant, approver(tenant), run_id, [{"call_id": "call_0", "approve": True}],
                                    background=True)
    # Back in the queue, to start where a server has room (max_concurrent counts it).
    assert status == 202 and accepted["status"] == "queued" and head["location"] == f"/api/runs/{run_id}"
    run = wait_status(tenant, run_id, {"completed"})
    assert run["result"]["response"] == "Refunded."
    _, _, raw = tenant.server.request("GET", f"/api/runs/{run_id}/events?last_event_id={len(types)}",
                                      headers=headers(tenant, tenant.token))
    later = [line.split(": ", 1)[1] for line in raw.splitlines() if line.startswith("event: ")]
    assert later[0] == "tool.started" and later[-1] == "run.completed", later


def test_a_streamed_run_ends_its_stream_with_the_pause(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools)
    llm.push(openai_tools([("refund", {"order": "A-1"})]))
    status, _, raw = tenant.invoke("shop", {"message": "refund A-1", "stream": True})
    assert status == 200
    frames = [f for f in raw.split("\n\n") if f.startswith("id: ")]
    last = frames[-1]
    assert "event: run.requires_action" in last
    data = json.loads(last.split("data: ", 1)[1])
    assert data["terminated_reason"] == "approval_required" and data["pending_actions"][0]["tool"] == "refund"
    assert tools.calls == []
    # Written by its pause (on SQLite a stateless streamed run is written late, docs/runs.md), with
    # every event its stream had; it goes on once decided.
    run_id = data["run_id"]
    assert wait_status(tenant, run_id, {"requires_action"})["pending_actions"][0]["tool"] == "refund"
    _, _, stored = tenant.server.request("GET", f"/api/runs/{run_id}/events", headers=headers(tenant, tenant.token))
    assert stored.split("\n\n")[:len(frames)] == frames
    llm.push(openai_text("Refunded."))
    status, _, done = decide(tenant, approver(tenant), run_id, [{"call_id": "call_0", "approve": True}])
    assert status == 200 and done["response"] == "Refunded.", done
    assert wait_status(tenant, run_id, {"completed"})["result"]["response"] == "Refunded."


def test_an_mcp_client_sees_the_pause_as_an_error_result_naming_the_run(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools)
    llm.push(openai_tools([("refund", {"order": "A-1"})]))
    h = headers(tenant, tenant.token)
    h["mcp-protocol-version"] = "2025-11-25"
    h["mcp-session-id"] = "s-1"
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "shop", "arguments": {"message": "refund A-1"}}}
    status, _, out = tenant.server.request("POST", "/mcp", call, h)
    assert status == 200, out
    result = out["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["terminated_reason"] == "approval_required"
    assert result["structuredContent"]["run_id"].startswith("run_")
    assert result["structuredContent"]["pending_actions"][0]["tool"] == "refund"


@pytest.mark.postgres
def test_a_run_paused_on_one_server_is_approved_and_goes_on_on_the_other(start_server, llm, tools):
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, "AGENTGATE_STORE_URL": first.store_url})
    tenant = Tenant(first)
    shop(tenant, tools)
    paused = pause_a_refund(tenant, llm, {"message": "refund A-1", "stateful": True})
    token = approver(tenant)
    first.stop()  # nothing of the run waits on the server it paused on
    other = tenant.via(second)
    llm.push(openai_text("Refunded."))
    status, _, done = decide(other, token, paused["run_id"], [{"call_id": "call_0", "approve": True}])
    assert status == 200 and done["response"] == "Refunded.", done
    assert [c["path"].split("?")[0] for c in tools.calls].count("/refund") == 1
    _, _, convo = other.conversation(paused["conversation_id"])
    assert [m["content"] for m in convo["messages"]] == ["refund A-1", "Refunded."]


def test_a_background_runs_pause_and_end_are_signed_webhooks_of_their_own(start_server, llm, tools):
    from test_webhooks import ALLOW_PRIVATE, registered_receiver
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, **ALLOW_PRIVATE})
    tenant = Tenant(server)
    shop(tenant, tools)
    hook, receiver = registered_receiver(tenant)
    try:
        assert "run.requires_action" in hook["events"]
        llm.push(openai_tools([("refund", {"order": "A-1"})]))
        status, _, queued = tenant.invoke("shop", {"message": "refund A-1", "background": True})
        assert status == 202, queued
        paused = receiver.wait(1)[0]
        assert paused["verified"] and paused["body"]["type"] == "run.requires_action"
        data = paused["body"]["data"]
        assert data["run_id"] == queued["run_id"] and data["status"] == "requires_action"
        assert data["pending_actions"] == [{"call_id": "call_0", "kind": "approval", "tool": "refund", "arguments": {"order": "A-1"}}]
        llm.push(openai_text("Refunded."))
        assert decide(tenant, approver(tenant), queued["run_id"], [{"call_id": "call_0", "approve": True}])[0] == 200
        ended = receiver.wait(2)[1]
        assert ended["verified"] and ended["body"]["type"] == "run.completed"
        assert ended["id"] != paused["id"]  # a delivery of its own
    finally:
        receiver.close()


def test_a_paused_run_counts_toward_the_queue_bound_until_it_is_decided(start_server, llm, tools):
    """docs/runs.md: max_queued_per_org counts runs waiting in the store, queued or paused."""
    tenant = start(start_server, llm, "[runs]\nmax_queued_per_org = 1\n")
    shop(tenant, tools)
    paused = pause_a_refund(tenant, llm)
    status, _, body = tenant.invoke("shop", {"message": "later", "background": True})
    assert status == 429 and body["error"]["code"] == "queue_full", body
    assert "paused" in body["error"]["message"]
    llm.push(openai_text("Refunded."))
    status, _, accepted = decide(tenant, approver(tenant), paused["run_id"],
                                 [{"call_id": "call_0", "approve": True}], background=True)
    assert status == 202 and accepted["status"] == "queued", accepted
    assert wait_status(tenant, paused["run_id"], {"completed"})["status"] == "completed"
    llm.push(openai_text("Later."))
    status, _, body = tenant.invoke("shop", {"message": "later", "background": True})
    assert status == 202, body
