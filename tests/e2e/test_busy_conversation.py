"""A call on a conversation that is busy (docs/daemon.md, "When a conversation is busy"): "if_busy":
"wait" (a plain or streamed call's default) waits its turn, "reject" is refused at once with 409
conversation_busy, on one server and across servers sharing a PostgreSQL store."""
import threading
import time

import pytest

from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text
from test_runs import follow


@pytest.fixture
def tenant(llm, start_server):
    llm.reset()
    tenant = Tenant(start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY}))
    tenant.agent("bot")
    return tenant


def conversation_of(tenant, llm):
    llm.push(openai_text("Hello."))
    status, _, body = tenant.invoke("bot", {"message": "start", "stateful": True})
    assert status == 200, body
    return body["conversation_id"]


def in_background(call):
    """Runs `call` on a thread; the returned dict gets its result."""
    out = {}
    thread = threading.Thread(target=lambda: out.update(result=call()))
    thread.start()
    out["thread"] = thread
    return out


def wait_for_requests(llm, count, within=5.0):
    deadline = time.monotonic() + within
    while len(llm.requests) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(llm.requests) >= count


def test_reject_is_refused_at_once_while_wait_waits_and_sees_the_reply(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("Slow reply."), "delay": 1.5}, openai_text("After it."))
    running = in_background(lambda: tenant.invoke("bot", {"message": "slow", "stateful": True,
                                                          "conversation_id": conversation}))
    wait_for_requests(llm, 2)  # the slow turn's model call is out
    started = time.monotonic()
    status, _, body = tenant.invoke("bot", {"message": "now!", "stateful": True, "conversation_id": conversation,
                                            "if_busy": "reject"})
    assert status == 409 and error_of(body)["code"] == "conversation_busy", body
    assert "conversation_id" in error_of(body)["message"]
    assert time.monotonic() - started < 0.5
    # The same with a streamed call, and with the flow action.
    status, _, body = tenant.invoke("bot", {"message": "now!", "stateful": True, "conversation_id": conversation,
                                            "if_busy": "reject", "stream": True})
    assert status == 409 and error_of(body)["code"] == "conversation_busy", body
    status, _, flow = tenant.server.request("POST", "/api/flow-actions/invoke-agent", {
        "agentExternalId": "bot", "message": "now!", "stateful": True, "conversationId": conversation,
        "ifBusy": "reject"}, {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
                              "fl-api-token": tenant.token})
    assert status == 409 and flow["message"].startswith("409: "), flow
    # A call that waits (the default) runs after the slow one and sees its reply in the history.
    status, _, after = tenant.invoke("bot", {"message": "then?", "stateful": True, "conversation_id": conversation,
                                             "if_busy": "wait"})
    running["thread"].join(10)
    assert running["result"][0] == 200 and status == 200, after
    sent = [m["content"] for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
    assert sent == ["start", "Hello.", "slow", "Slow reply.", "then?"]
    assert len(llm.requests) == 3  # the refused calls called no model
    # Free again, a rejecting call runs.
    llm.push(openai_text("Free now."))
    status, _, body = tenant.invoke("bot", {"message": "free?", "stateful": True, "conversation_id": conversation,
                                            "if_busy": "reject"})
    assert status == 200 and body["response"] == "Free now.", body
    _, _, stored = tenant.conversation(conversation)
    assert [m["content"] for m in stored["messages"]] == ["start", "Hello.", "slow", "Slow reply.", "then?",
                                                          "After it.", "free?", "Free now."]


def test_a_background_run_is_rejected_by_default_and_cannot_wait(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("Slow reply."), "delay": 1.0})
    running = in_background(lambda: tenant.invoke("bot", {"message": "slow", "stateful": True,
                                                          "conversation_id": conversation}))
    wait_for_requests(llm, 2)
    status, _, body = tenant.invoke("bot", {"message": "later", "stateful": True, "conversation_id": conversation,
                                            "background": True})
    assert status == 409 and error_of(body)["code"] == "conversation_busy", body
    status, _, body = tenant.invoke("bot", {"message": "later", "stateful": True, "conversation_id": conversation,
                                            "background": True, "if_busy": "wait"})
    assert status == 400 and "'if_busy'" in error_of(body)["message"], body
    status, _, body = tenant.invoke("bot", {"message": "x", "if_busy": "sometimes"})
    assert status == 400 and "'if_busy'" in error_of(body)["message"], body
    running["thread"].join(10)
    assert running["result"][0] == 200


def test_a_stateless_call_or_a_new_conversation_is_never_busy(tenant, llm):
    llm.push(openai_text("One."), openai_text("Two."))
    assert tenant.invoke("bot", {"message": "hi", "if_busy": "reject"})[0] == 200
    status, _, body = tenant.invoke("bot", {"message": "hi", "stateful": True, "if_busy": "reject"})
    assert status == 200 and body["conversation_id"], body


def test_of_two_rejecting_calls_at_once_one_runs(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("First."), "delay": 0.5}, {**openai_text("Second."), "delay": 0.5})
    calls = [in_background(lambda: tenant.invoke("bot", {"message": "go", "stateful": True,
                                                         "conversation_id": conversation,
                                                         "if_busy": "reject"})) for _ in range(2)]
    for call in calls:
        call["thread"].join(10)
    statuses = sorted(call["result"][0] for call in calls)
    assert statuses == [200, 409], [call["result"] for call in calls]


@pytest.mark.postgres
def test_a_turn_running_on_another_server_makes_the_conversation_busy(start_server, llm):
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, "AGENTGATE_STORE_URL": first.store_url})
    tenant = Tenant(first)
    tenant.agent("bot")
    conversation = conversation_of(tenant, llm)
    elsewhere = tenant.via(second)
    llm.push({**openai_text("Slow reply."), "delay": 1.5}, openai_text("After it."))
    running = in_background(lambda: tenant.invoke("bot", {"message": "slow", "stateful": True,
                                                          "conversation_id": conversation}))
    wait_for_requests(llm, 2)
    status, _, body = elsewhere.invoke("bot", {"message": "now!", "stateful": True,
                                               "conversation_id": conversation, "if_busy": "reject"})
    assert status == 409 and error_of(body)["code"] == "conversation_busy", body
    # Waiting on the other server, it runs after the first and sees its reply.
    status, _, body = elsewhere.invoke("bot", {"message": "then?", "stateful": True,
                                               "conversation_id": conversation})
    running["thread"].join(10)
    assert running["result"][0] == 200 and status == 200 and body["response"] == "After it.", body
    sent = [m["content"] for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
    assert sent[-3:] == ["slow", "Slow reply.", "then?"]


def test_a_streamed_call_that_waits_streams_once_its_turn_comes(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("Slow reply."), "delay": 1.0}, openai_text("Streamed after."))
    running = in_background(lambda: tenant.invoke("bot", {"message": "slow", "stateful": True,
                                                          "conversation_id": conversation}))
    wait_for_requests(llm, 2)
    events = follow(tenant, "/api/agents/bot/invoke", body={"message": "then?", "stateful": True,
                                                            "conversation_id": conversation})["events"]
    running["thread"].join(10)
    assert events[-1]["type"] == "run.completed" and events[-1]["data"]["response"] == "Streamed after."
