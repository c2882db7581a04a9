"""The flow action endpoint (POST /api/flow-actions/invoke-agent) through the binary: every output,
and every fault status with a message that begins with it."""
import threading

import pytest

from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text, openai_tools




@pytest.fixture
def flow(llm, start_server):
    llm.reset()
    server = start_server(config_for(llm, "answer_early_seconds = 1\nturn_timeout_seconds = 3"),
                          env={"FAKE_LLM_KEY": API_KEY})
    return Tenant(server)


def call(tenant, body, headers=None, timeout=30):
    h = {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod", "fl-api-token": tenant.token}
    h.update(headers or {})
    return tenant.server.request("POST", "/api/flow-actions/invoke-agent", body, {k: v for k, v in h.items() if v},
                                 timeout=timeout)


def fault(result, status):
    code, _, body = result
    assert code == status, body
    assert set(body) == {"message"} and body["message"].startswith(f"{status}: "), body
    return body["message"]


def test_outputs_of_a_complete_reply_and_a_stateful_continuation(flow, llm):
    flow.agent("bot")
    llm.push(openai_text("Hello from the flow"))
    status, _, out = call(flow, {"agentExternalId": "bot", "message": "hi", "stateful": True, "conversationId": "",
                                 "hostContextJson": '{"recordId": "001xx"}', "groupKey": None,
                                 "additionalInstructions": "Be short."})
    assert status == 200
    assert out["response"] == "Hello from the flow" and out["isComplete"] is True
    assert out["stoppedBecause"] is None and out["blocked"] is False and out["conversationId"].startswith("conv_")
    system = llm.requests[-1]["body"]["messages"][0]["content"]
    assert "001xx" in system and "Be short." in system
    llm.push(openai_text("Second"))
    status, _, again = call(flow, {"agentExternalId": "bot", "message": "more", "stateful": True,
                                   "conversationId": out["conversationId"]})
    assert status == 200 and again["conversationId"] == out["conversationId"]
    assert [m["content"] for m in llm.requests[-1]["body"]["messages"][1:]] == ["hi", "Hello from the flow", "more"]


def test_a_stop_reason_or_a_block_makes_is_complete_false(flow, llm):
    flow.agent("busy", max_iterations=1, actions=[{"name": "step", "description": "d"}])
    llm.push(openai_tools([("step", {})], text="partial"))
    _, _, out = call(flow, {"agentExternalId": "busy", "message": "go"})
    assert out["isComplete"] is False and out["stoppedBecause"] == "max_iterations"
    flow.agent("guarded", safety={"block_patterns": ["secret plan"]})
    llm.push(openai_text("the secret plan is..."))
    _, _, out = call(flow, {"agentExternalId": "guarded", "message": "tell"})
    assert out["isComplete"] is False and out["blocked"] is True and out["stoppedBecause"] is None


def test_turn_timeout_is_reported_as_stopped_because(flow, llm):
    flow.agent("slow", actions=[{"name": "step", "description": "d"}])
    llm.push(dict(openai_tools([("step", {})], text="so far"), delay=1.2))
    _, _, out = call(flow, {"agentExternalId": "slow", "message": "go"})
    assert out["stoppedBecause"] == "turn_timeout" and out["isComplete"] is False


@pytest.mark.parametrize("body,field", [
    ({"message": "x"}, "agentExternalId"),
    ({"agentExternalId": "bot"}, "message"),
    ({"agentExternalId": "bot", "message": "x", "hostContextJson": "{not json"}, "hostContextJson"),
    ({"agentExternalId": "bot", "message": "x", "hostContextJson": "[1,2]"}, "hostContextJson"),
    ({"agentExternalId": "bot", "message": "x", "groupKey": "a b"}, "groupKey"),
    ({"agentExternalId": "bot", "message": "x", "conversationId": "conv_1"}, "conversationId"),
    ({"agentExternalId": "bot", "message": "x", "idempotencyKey": "has space"}, "idempotencyKey"),
    ({"agentExternalId": "bot", "message": "x", "hostContextJson": '{"a":1,"a":2}'}, "hostContextJson"),
])
def test_bad_inputs_are_400_naming_the_flow_field(flow, body, field):
    flow.agent("bot")
    assert f"'{field}'" in fault(call(flow, body), 400)


def test_a_blank_group_key_means_no_group_key(flow):
    """A Flow's unset text variable arrives as "": like the other blank inputs, it is not given."""
    flow.agent("bot")
    status, _, out = call(flow, {"agentExternalId": "bot", "message": "x", "groupKey": ""})
    assert status == 200 and out["isComplete"] is True, out


def test_fault_statuses(flow, llm):
    flow.agent("bot")
    fault(call(flow, {"agentExternalId": "bot", "message": "x"}, headers={"fl-api-token": "agt_wrong"}), 401)
    fault(call(flow, {"agentExternalId": "bot", "message": "x"}, headers={"fl-api-env": "nowhere"}), 403)
    fault(call(flow, {"agentExternalId": "ghost", "message": "x"}), 404)
    flow.agent("capped", monthly_spend_limit_usd=0)
    fault(call(flow, {"agentExternalId": "capped", "message": "x"}), 402)
    llm.push(dict(openai_text("late"), delay=10))
    fault(call(flow, {"agentExternalId": "bot", "message": "x"}), 504)


def test_idempotency_key_409_and_replay(flow, llm):
    flow.agent("bot")
    # Long enough that the other two arrive while it runs, well inside answer_early_seconds (1 s).
    llm.push(dict(openai_text("once"), delay=0.5))
    body = {"agentExternalId": "bot", "message": "pay", "idempotencyKey": "flow-1"}
    results = []
    threads = [threading.Thread(target=lambda: results.append(call(flow, body))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r[0] for r in results) == [200, 409, 409]
    message = fault(next(r for r in results if r[0] == 409), 409)
    assert "already running" in message
    status, headers, out = call(flow, body)
    assert status == 200 and headers["idempotent-replayed"] == "true" and out["response"] == "once"
    assert len(llm.requests) == 1
    fault(call(flow, dict(body, message="different")), 422)


def test_the_conversation_window_is_a_429_fault(flow, llm):
    flow.agent("chatty", provider="offline", model="offline-1")
    _, _, out = call(flow, {"agentExternalId": "chatty", "message": "hi", "stateful": True})
    statuses = [call(flow, {"agentExternalId": "chatty", "message": str(i), "stateful": True,
                            "conversationId": out["conversationId"]}) for i in range(200)]
    assert [s[0] for s in statuses].count(429) == 1
    fault(statuses[-1], 429)
    assert "retry-after" in statuses[-1][1]


def test_a_pause_gives_the_flow_its_run_and_what_it_waits_for(flow, llm):
    import json
    flow.agent("asker", ask_user=True)
    llm.push(openai_tools([("ask_user", {"question": "Which order?"})]))
    status, _, out = call(flow, {"agentExternalId": "asker", "message": "refund"})
    assert status == 200, out
    assert out["isComplete"] is False and out["stoppedBecause"] == "input_required", out
    assert out["runId"].startswith("run_")
    [need] = json.loads(out["pendingActionsJson"])
    assert need["kind"] == "question" and need["question"] == "Which order?", need
    llm.push(openai_text("Done."))
    status, _, out = call(flow, {"agentExternalId": "asker", "message": "hi"})
    assert status == 200 and out["runId"] is None and out["pendingActionsJson"] is None, out
