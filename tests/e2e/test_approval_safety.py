"""A call that needs approval passes through the safety policy (docs/daemon.md "Safety"): a model
step whose call awaiting approval carries arguments the policy blocks ends the turn blocked, and
nothing it blocks appears anywhere a paused call would be shown, through the binary on both
stores."""
import json

from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_tools
from test_runs import wait_status
from test_approvals import headers, tools  # noqa: F401  (tools: a fixture)

CARD = "4111 1111 1111 1111"
PLACEHOLDER = "Withheld by policy."


def shop(tenant, tools):
    return tenant.agent("shop", safety={"detect": ["credit_card"], "placeholder": PLACEHOLDER}, tools=[
        {"type": "http", "name": "refund", "description": "Refunds", "parameters": {"type": "object"},
         "url": f"http://127.0.0.1:{tools.port}/refund", "method": "POST", "approval": "always"}])


def refund_with_card(llm):
    llm.push(openai_tools([("refund", {"order": "A-1", "card": CARD})], text="Refunding now."))


def assert_card_absent(text):
    text = text if isinstance(text, str) else json.dumps(text)
    assert CARD not in text and CARD.replace(" ", "") not in text, text


def assert_blocked_answer(body):
    assert body["blocked"] is True and body["response"] == PLACEHOLDER, body
    assert body["terminated_reason"] is None, body
    assert "pending_actions" not in body and "run_id" not in body, body


def start(start_server, llm, extra="", env=None):
    server = start_server(config_for(llm) + extra, env={"FAKE_LLM_KEY": API_KEY, **(env or {})})
    return Tenant(server)


def test_a_plain_call_ends_blocked_and_its_replay_transcript_and_approvals_list_hold_no_card(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools)
    refund_with_card(llm)
    h = {"idempotency-key": "refund-1"}
    status, head, body = tenant.invoke("shop", {"message": "refund my last order", "stateful": True}, headers=h)
    assert status == 200, body
    assert_blocked_answer(body)
    assert tools.calls == []  # no tool ran
    assert len(llm.requests) == 1  # nothing was sent back to the model either

    # The Idempotency-Key replay is the same blocked answer.
    status, again, replay = tenant.invoke("shop", {"message": "refund my last order", "stateful": True}, headers=h)
    assert status == 200 and again.get("idempotent-replayed") == "true" and replay == body, replay

    # The transcript says why, and withholds the arguments.
    _, _, turn = tenant.server.admin("GET", f"/orgs/{tenant.org}/turns/{head['x-agentgate-turn-id']}")
    assert_card_absent(turn)
    assert "arguments of a call that needed approval" in turn["transcript"]["withheld"], turn
    _, _, convo = tenant.conversation(body["conversation_id"])
    assert [m["content"] for m in convo["messages"]] == ["refund my last order", PLACEHOLDER]

    # The console's and the admin API's list of runs offers nothing for approval.
    status, _, runs = tenant.server.admin("GET", f"/orgs/{tenant.org}/environments/prod/runs")
    assert status == 200, runs
    assert all(r["status"] != "requires_action" for r in runs["runs"]), runs
    assert_card_absent(runs)


def test_a_streamed_run_ends_completed_and_blocked_with_no_requires_action_event(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools)
    refund_with_card(llm)
    status, _, raw = tenant.invoke("shop", {"message": "refund my last order", "stream": True})
    assert status == 200
    assert_card_absent(raw)
    events = [line.split(": ", 1)[1] for line in raw.splitlines() if line.startswith("event: ")]
    assert "run.requires_action" not in events and events[-1] == "run.completed", events
    last = [f for f in raw.split("\n\n") if f.startswith("id: ")][-1]
    assert_blocked_answer(json.loads(last.split("data: ", 1)[1]))
    assert tools.calls == []


def test_a_background_run_and_its_webhook_show_the_blocked_end_only(start_server, llm, tools):
    from test_webhooks import ALLOW_PRIVATE, registered_receiver
    tenant = start(start_server, llm, env=ALLOW_PRIVATE)
    shop(tenant, tools)
    hook, receiver = registered_receiver(tenant)
    try:
        refund_with_card(llm)
        status, _, queued = tenant.invoke("shop", {"message": "refund my last order", "background": True})
        assert status == 202, queued
        run = wait_status(tenant, queued["run_id"], {"completed", "failed", "requires_action"})
        assert run["status"] == "completed", run
        assert "pending_actions" not in run, run
        assert_blocked_answer(run["result"])
        assert_card_absent(run)
        _, _, events = tenant.server.request("GET", f"/api/runs/{queued['run_id']}/events",
                                             headers=headers(tenant, tenant.token))
        assert_card_absent(events)
        assert "run.requires_action" not in events
        delivered = receiver.wait(1)[0]
        assert delivered["verified"] and delivered["body"]["type"] == "run.completed", delivered
        assert_card_absent(delivered["body"])
        assert_blocked_answer(delivered["body"]["data"]["result"])
        assert tools.calls == []
    finally:
        receiver.close()


def test_an_mcp_client_gets_a_blocked_result_without_the_arguments(start_server, llm, tools):
    tenant = start(start_server, llm)
    shop(tenant, tools)
    refund_with_card(llm)
    h = headers(tenant, tenant.token)
    h["mcp-protocol-version"] = "2025-11-25"
    h["mcp-session-id"] = "s-1"
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "shop", "arguments": {"message": "refund my last order"}}}
    status, _, out = tenant.server.request("POST", "/mcp", call, h)
    assert status == 200, out
    assert_card_absent(out)
    structured = out["result"]["structuredContent"]
    assert structured["blocked"] is True and structured["terminated_reason"] is None, structured
    assert "pending_actions" not in structured and "run_id" not in structured, structured
    assert tools.calls == []


def test_exported_trace_content_never_holds_the_arguments(start_server, llm, tools, tmp_path):
    from test_tracing import Receiver
    collector = Receiver(tmp_path / "exports.jsonl")
    try:
        tenant = start(start_server, llm, f'\n[tracing]\nendpoint = "{collector.endpoint}"\ncapture_content = true\n')
        shop(tenant, tools)
        refund_with_card(llm)
        status, _, body = tenant.invoke("shop", {"message": "refund my last order"})
        assert status == 200, body
        assert_blocked_answer(body)
        spans = collector.wait_for(lambda s: any(x["name"] == "invoke_agent shop" for x in s))
        assert any(x["name"] == "chat gpt-test" for x in spans), spans
        assert_card_absent(json.dumps(collector.exports()))
    finally:
        collector.close()


# Arguments as a model writes them when asked to hide a match behind a JSON escape, and the decoded
# text a person would read (issue 72, part 1): checked as shown, each ends the turn blocked.
ESCAPED = [
    ('{"order": "A-1", "note": "\\u0041KIAIOSFODNN7EXAMPLE"}', "AKIAIOSFODNN7EXAMPLE"),
    ('{"order": "A-1", "card": "4111\\u00201111\\u00201111\\u00201111"}', CARD),
    ('{"order": "A-1", "note": "internal\\u0020only"}', "internal only"),
]


def guarded(tenant, tools):
    return tenant.agent("guarded", safety={"detect": ["credit_card", "secret"], "placeholder": PLACEHOLDER,
                                           "block_patterns": ["(?i)internal only"]}, tools=[
        {"type": "http", "name": "refund", "description": "Refunds", "parameters": {"type": "object"},
         "url": f"http://127.0.0.1:{tools.port}/refund", "method": "POST", "approval": "always"}])


def push_escaped(llm, raw_arguments):
    step = openai_tools([("refund", {})], text="Refunding now.")
    step["json"]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = raw_arguments
    llm.push(step)


def assert_not_shown(out, decoded):
    text = out if isinstance(out, str) else json.dumps(out)
    assert decoded.lower() not in text.lower() and decoded.replace(" ", "") not in text, text
    assert "\\u0041KIA" not in text and "\\u0020" not in text, text


def test_escaped_arguments_end_a_plain_call_blocked(start_server, llm, tools):
    tenant = start(start_server, llm)
    guarded(tenant, tools)
    for raw, decoded in ESCAPED:
        push_escaped(llm, raw)
        status, _, body = tenant.invoke("guarded", {"message": "refund my last order"})
        assert status == 200, body
        assert_blocked_answer(body)
        assert_not_shown(body, decoded)
    assert tools.calls == []


def test_escaped_arguments_end_a_background_run_blocked(start_server, llm, tools):
    tenant = start(start_server, llm)
    guarded(tenant, tools)
    for raw, decoded in ESCAPED:
        push_escaped(llm, raw)
        status, _, queued = tenant.invoke("guarded", {"message": "refund my last order", "background": True})
        assert status == 202, queued
        run = wait_status(tenant, queued["run_id"], {"completed", "failed", "requires_action"})
        assert run["status"] == "completed" and "pending_actions" not in run, run
        assert_blocked_answer(run["result"])
        assert_not_shown(run, decoded)
        _, _, events = tenant.server.request("GET", f"/api/runs/{queued['run_id']}/events",
                                             headers=headers(tenant, tenant.token))
        assert "run.requires_action" not in events
        assert_not_shown(events, decoded)
    assert tools.calls == []


def test_escaped_arguments_end_a_streamed_run_blocked(start_server, llm, tools):
    tenant = start(start_server, llm)
    guarded(tenant, tools)
    for raw, decoded in ESCAPED:
        push_escaped(llm, raw)
        status, _, stream = tenant.invoke("guarded", {"message": "refund my last order", "stream": True})
        assert status == 200
        assert "run.requires_action" not in stream, stream
        assert_not_shown(stream, decoded)
    assert tools.calls == []


def test_escaped_arguments_end_an_openai_chat_completion_blocked(start_server, llm, tools):
    from test_openai_api import new_key, sdk
    tenant = start(start_server, llm)
    guarded(tenant, tools)
    key = new_key(tenant, agents=("guarded",))
    for raw, decoded in ESCAPED:
        push_escaped(llm, raw)
        # Through the official openai SDK's chat.completions.create, as a user's client calls.
        completion = sdk(tenant, key, "chat", model="guarded",
                         messages=[{"role": "user", "content": "refund my last order"}])["result"]
        choice = completion["choices"][0]
        assert choice["finish_reason"] == "content_filter" and choice["message"]["content"] == PLACEHOLDER, completion
        assert "pending_actions" not in completion["agentgate"], completion
        assert_not_shown(completion, decoded)
    assert tools.calls == []
