"""The Daemon (POST /api/agents/{agent_id}/invoke) through the binary against fake providers."""
import http.client
import json
import re
import threading
import time

import pytest

import stores
from conftest import ADMIN_TOKEN, error_of
from daemon_harness import API_KEY, FakeToolServer, Tenant, config_for
from fakes.fake_llm import (anthropic_error, anthropic_text, anthropic_tools, openai_error, openai_text,
                            openai_tools)




@pytest.fixture
def daemon(llm, start_server):
    llm.reset()
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    return Tenant(server)


def test_openai_wire_format_reply_usage_and_cost(daemon, llm):
    daemon.agent("bot", instructions="Be brief.", model_settings={"temperature": 0.3, "max_output_tokens": 77})
    llm.push(openai_text("Hello there", input_tokens=1000, output_tokens=500))
    status, _, body = daemon.invoke("bot", {"message": "hi"})
    assert status == 200, body
    assert body == {"response": "Hello there", "conversation_id": None, "terminated_reason": None, "blocked": False,
                    "output": None, "usage": {"input_tokens": 1000, "output_tokens": 500, "cost_usd": pytest.approx(2.0),
                              "model_calls": 1,
                              "models": [{"provider": "fake-openai", "model": "gpt-test", "calls": 1,
                                          "failed_calls": 0, "input_tokens": 1000, "cached_input_tokens": 0,
                                          "cache_write_tokens": 0, "output_tokens": 500,
                                          "cost_usd": pytest.approx(2.0)}]}}
    sent = llm.requests[-1]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == f"Bearer {API_KEY}"
    assert sent["body"]["model"] == "gpt-test" and sent["body"]["max_tokens"] == 77
    assert sent["body"]["temperature"] == 0.3
    assert sent["body"]["messages"][0] == {"role": "system", "content": "Be brief."}
    assert sent["body"]["messages"][-1] == {"role": "user", "content": "hi"}


def test_money_is_written_in_plain_decimal(daemon, llm):
    """Costs reach callers and Salesforce fields as written: 0.003, not 3E-3 (nor 0E0 for free turns)."""
    daemon.agent("bot")
    llm.push(openai_text("cheap", input_tokens=1, output_tokens=1))  # $0.001 + $0.002
    h = {"content-type": "application/json", "fl-api-org": "acme", "fl-api-env": "prod", "fl-api-token": daemon.token}
    conn = http.client.HTTPConnection(daemon.server.host, daemon.server.port, timeout=10)
    conn.request("POST", "/api/agents/bot/invoke", json.dumps({"message": "hi"}), h)
    text = conn.getresponse().read().decode()
    conn.close()
    assert re.search(r'"cost_usd":0\.003[0-9]*[,}]', text), text
    daemon.settled_usage()  # the server's unused spend lease is given back
    conn = http.client.HTTPConnection(daemon.server.host, daemon.server.port, timeout=10)
    conn.request("GET", "/admin/v1/orgs/acme/usage", headers={"authorization": f"Bearer {ADMIN_TOKEN}"})
    text = conn.getresponse().read().decode()
    assert "E-" not in text and "E0" not in text and '"total_reserved_usd":0' in text, text


def test_anthropic_wire_format(daemon, llm):
    daemon.agent("claude", provider="fake-anthropic", model="claude-test", instructions="Be kind.")
    llm.push(anthropic_text("Hi from Claude", input_tokens=100, output_tokens=10))
    status, _, body = daemon.invoke("claude", {"message": "hello"})
    assert status == 200 and body["response"] == "Hi from Claude"
    assert body["usage"]["cost_usd"] == pytest.approx(100 * 3000 / 1e6 + 10 * 15000 / 1e6)
    sent = llm.requests[-1]
    assert sent["path"] == "/v1/messages"
    assert sent["headers"]["x-api-key"] == API_KEY and sent["headers"]["anthropic-version"] == "2023-06-01"
    assert sent["body"]["system"] == "Be kind."
    assert sent["body"]["messages"] == [{"role": "user", "content": "hello"}]


def test_http_tools_call_only_their_configured_url(daemon, llm):
    tools = FakeToolServer()
    try:
        daemon.agent("shop", tools=[{"type": "http", "name": "track_order", "description": "Track an order",
                                     "parameters": {"type": "object", "properties": {"order": {"type": "string"}}},
                                     "url": f"http://127.0.0.1:{tools.port}/track", "method": "POST",
                                     "headers": {"x-tool-key": "k1"}}])
        llm.push(openai_tools([("track_order", {"order": "A-1"})]), openai_text("Your order ships in 2 days."))
        status, _, body = daemon.invoke("shop", {"message": "where is A-1?"})
        assert status == 200 and body["response"] == "Your order ships in 2 days."
        assert body["usage"]["model_calls"] == 2
        assert len(tools.calls) == 1
        call = tools.calls[0]
        assert call["path"] == "/track" and json.loads(call["body"]) == {"order": "A-1"}
        assert call["headers"]["x-tool-key"] == "k1"
        tool_message = llm.requests[-1]["body"]["messages"][-1]
        assert tool_message["role"] == "tool" and '"shipped"' in tool_message["content"]
        assert llm.requests[-1]["body"]["tools"][0]["function"]["name"] == "track_order"
    finally:
        tools.close()


def test_actions_are_appended_as_blocks_in_call_order(daemon, llm):
    daemon.agent("desk", actions=[{"name": "create_case", "description": "Open a case",
                                   "parameters": {"type": "object"}}])
    llm.push(openai_tools([("create_case", {"subject": "Printer"}), ("create_case", {"subject": "Badge"})]),
             openai_text("I opened two cases."))
    status, _, body = daemon.invoke("desk", {"message": "two problems"})
    assert status == 200
    assert body["response"] == ('I opened two cases.\n\n:::action\n{"name":"create_case","arguments":{"subject":"Printer"}}'
                                '\n:::\n\n:::action\n{"name":"create_case","arguments":{"subject":"Badge"}}\n:::')
    acks = [m for m in llm.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert len(acks) == 2 and all("caller will perform" in a["content"] for a in acks)


def test_max_iterations(daemon, llm):
    daemon.agent("busy", max_iterations=2, actions=[{"name": "step", "description": "d"}])
    llm.push(openai_tools([("step", {"n": 1})], text="working"), openai_tools([("step", {"n": 2})], text="still working"))
    status, _, body = daemon.invoke("busy", {"message": "go"})
    assert status == 200 and body["terminated_reason"] == "max_iterations"
    assert body["usage"]["model_calls"] == 2 and body["response"].startswith("still working")


def test_loop_detected(daemon, llm):
    daemon.agent("loopy", actions=[{"name": "ping", "description": "d"}])
    llm.push(*[openai_tools([("ping", {"x": 1})]) for _ in range(3)])
    status, _, body = daemon.invoke("loopy", {"message": "go"})
    assert status == 200 and body["terminated_reason"] == "loop_detected" and body["usage"]["model_calls"] == 3


@pytest.mark.parametrize("steps,calls", [
    ([openai_error(500, "server_error")] * 3, 3),
    ([{"status": 200, "raw": "{not json"}] * 3, 3),
    ([openai_error(400, "context_length_exceeded")], 1),
])
def test_llm_error_after_bounded_retries(daemon, llm, steps, calls):
    daemon.agent("flaky")
    llm.push(*steps)
    status, _, body = daemon.invoke("flaky", {"message": "hi"})
    assert status == 200 and body["terminated_reason"] == "llm_error"
    assert len(llm.requests) == calls


def test_a_transient_failure_then_success_is_a_normal_answer(daemon, llm):
    daemon.agent("flaky")
    llm.push(openai_error(503, "overloaded"), openai_text("recovered"))
    status, _, body = daemon.invoke("flaky", {"message": "hi"})
    assert (status, body["response"], body["terminated_reason"]) == (200, "recovered", None)


@pytest.mark.parametrize("step", [
    openai_error(401, "invalid_api_key"),
    openai_error(403, "forbidden"),
    openai_error(402, "payment_required"),
    openai_error(429, "insufficient_quota", headers={"retry-after": "1"}),
])
def test_provider_refusals_stop_at_once(daemon, llm, step):
    daemon.agent("refused")
    llm.push(step)
    status, _, body = daemon.invoke("refused", {"message": "hi"})
    assert status == 200 and body["terminated_reason"] == "provider_error"
    assert len(llm.requests) == 1


def test_throttling_waits_for_retry_after_when_it_fits(daemon, llm):
    daemon.agent("throttled")
    llm.push(openai_error(429, "rate_limit_exceeded", headers={"retry-after": "1"}), openai_text("after the wait"))
    started = time.monotonic()
    status, _, body = daemon.invoke("throttled", {"message": "hi"})
    assert status == 200 and body["response"] == "after the wait" and body["terminated_reason"] is None
    assert time.monotonic() - started >= 1.0


def test_throttling_that_does_not_fit_is_a_provider_error(daemon, llm):
    daemon.agent("throttled")
    llm.push(openai_error(429, "rate_limit_exceeded", headers={"retry-after": "3600"}))
    status, _, body = daemon.invoke("throttled", {"message": "hi"})
    assert status == 200 and body["terminated_reason"] == "provider_error" and len(llm.requests) == 1


def test_anthropic_overload_retries_and_spend_limit_refuses(daemon, llm):
    daemon.agent("claude", provider="fake-anthropic", model="claude-test")
    llm.push(anthropic_error(529, "overloaded_error"), anthropic_text("ok now"))
    assert daemon.invoke("claude", {"message": "hi"})[2]["response"] == "ok now"
    llm.push(anthropic_error(400, "enforced_spend_limit_reached"))
    assert daemon.invoke("claude", {"message": "hi"})[2]["terminated_reason"] == "provider_error"


def test_safety_withholds_the_reply_everywhere(daemon, llm):
    daemon.agent("guarded", safety={"block_patterns": ["(?i)internal only"], "detect": ["credit_card"],
                                    "placeholder": "Withheld by policy."})
    llm.push(openai_text("This is INTERNAL ONLY: the launch date."))
    status, _, body = daemon.invoke("guarded", {"message": "tell me", "stateful": True})
    assert status == 200 and body["blocked"] is True and body["response"] == "Withheld by policy."
    llm.push(openai_text("Card 4111 1111 1111 1111"))
    _, _, body2 = daemon.invoke("guarded", {"message": "card?", "stateful": True,
                                            "conversation_id": body["conversation_id"]})
    assert body2["blocked"] is True
    _, _, convo = daemon.conversation(body["conversation_id"])
    stored = json.dumps(convo)
    # The card as written: ids are hex and may hold "4111" by chance.
    assert "launch date" not in stored and "4111 1111" not in stored
    assert convo["messages"][1]["content"] == "Withheld by policy."
    assert "launch date" not in "".join(daemon.server.lines)


def test_stateful_history_is_sent_as_real_turns_and_only_message_and_reply_are_stored(daemon, llm):
    daemon.agent("chat")
    llm.push(openai_text("first answer"))
    _, _, first = daemon.invoke("chat", {"message": "first", "stateful": True, "host_context": {"account": "A-9"},
                                         "additional_instructions": "Mention the account."})
    cid = first["conversation_id"]
    assert cid and cid.startswith("conv_")
    assert "A-9" in llm.requests[-1]["body"]["messages"][0]["content"]
    llm.push(openai_text("second answer"))
    _, _, second = daemon.invoke("chat", {"message": "second", "stateful": True, "conversation_id": cid})
    assert second["conversation_id"] == cid
    messages = llm.requests[-1]["body"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert [m["content"] for m in messages[1:]] == ["first", "first answer", "second"]
    assert "A-9" not in messages[0]["content"] and "Mention the account" not in messages[0]["content"]
    _, _, convo = daemon.conversation(cid)
    assert [m["content"] for m in convo["messages"]] == ["first", "first answer", "second", "second answer"]
    assert len(convo["turns"]) == 2 and convo["turns"][0]["model_calls"] == 1
    assert convo["turns"][0]["transcript"]["messages"][-1]["content"] == "first answer"


def test_a_long_conversation_sends_the_newest_turns_that_fit_and_keeps_them_all(daemon, llm):
    """The history is read from its tail, as much as the context holds: the oldest turns are not
    sent, the newest are, in order, starting with a user turn; the store keeps every message."""
    daemon.agent("brief", model_settings={"context_tokens": 1200, "max_output_tokens": 100})
    cid = None
    for i in range(12):
        llm.push(openai_text(f"answer {i} " + "a" * 300))
        body = {"message": f"question {i} " + "q" * 300, "stateful": True}
        if cid:
            body["conversation_id"] = cid
        status, _, out = daemon.invoke("brief", body)
        assert status == 200, out
        cid = out["conversation_id"]
    sent = llm.requests[-1]["body"]["messages"][1:]
    assert sent[-1]["content"].startswith("question 11 ")
    assert sent[0]["role"] == "user" and 2 < len(sent) < 23, [m["content"][:12] for m in sent]
    numbers = [int(m["content"].split()[1]) for m in sent[:-1]]
    assert numbers == sorted(numbers) and numbers[-1] == 10  # the newest turns, in order
    _, _, convo = daemon.conversation(cid)
    assert len(convo["messages"]) == 24


def test_conversation_rules(daemon, llm):
    daemon.agent("chat")
    daemon.agent("other")
    status, _, body = daemon.invoke("chat", {"message": "x", "conversation_id": "conv_1"})
    assert status == 400 and "'conversation_id'" in error_of(body)["message"]
    _, _, first = daemon.invoke("chat", {"message": "x", "stateful": True})
    status, _, body = daemon.invoke("other", {"message": "x", "stateful": True, "conversation_id": first["conversation_id"]})
    assert status == 404 and error_of(body)["code"] == "conversation_not_found"
    status, _, body = daemon.invoke("chat", {"message": "x", "stateful": True, "conversation_id": "conv_nope"})
    assert status == 404
    status, _, body = daemon.invoke("chat", {"message": "x"})
    assert status == 200 and body["conversation_id"] is None


@pytest.mark.parametrize("body,field", [
    ({}, "message"), ({"message": ""}, "message"), ({"message": 1}, "message"),
    ({"message": "x", "group_key": ""}, "group_key"), ({"message": "x", "group_key": "a/b"}, "group_key"),
    ({"message": "x", "group_key": "g" * 129}, "group_key"), ({"message": "x", "host_context": "{}"}, "host_context"),
    ({"message": "x", "stateful": "true"}, "stateful"),
])
def test_bad_requests_name_the_field(daemon, body, field):
    daemon.agent("chat")
    status, _, resp = daemon.invoke("chat", body)
    assert status == 400 and f"'{field}'" in error_of(resp)["message"]


def test_per_instance_agents(daemon, llm):
    daemon.agent("store", per_instance=True, instructions="You help a store.")
    daemon.server.admin("POST", "/orgs/acme/agents/store/instances", {"instance_id": "s-7", "instructions": "Store 7 closes at 6."})
    status, _, body = daemon.invoke("store", {"message": "hours?"})
    assert status == 400 and "'instance_id'" in error_of(body)["message"]
    status, _, body = daemon.invoke("store", {"message": "hours?", "instance_id": "s-8"})
    assert status == 404 and error_of(body)["code"] == "instance_not_found"
    llm.push(openai_text("At 6."))
    status, _, body = daemon.invoke("store", {"message": "hours?", "instance_id": "s-7"})
    assert status == 200
    system = llm.requests[-1]["body"]["messages"][0]["content"]
    assert system.index("You help a store.") < system.index("Store 7 closes at 6.")
    daemon.agent("plain")
    llm.push(openai_text("ok"))
    assert daemon.invoke("plain", {"message": "x", "instance_id": "whatever"})[0] == 200  # ignored


def test_shared_memory_is_scoped_by_group_key_and_org(daemon, llm, start_server):
    daemon.agent("mem", memory="shared")
    llm.push(openai_tools([("remember", {"fact": "The customer prefers email"})]), openai_text("Noted."))
    assert daemon.invoke("mem", {"message": "remember I like email", "group_key": "cust-1"})[0] == 200
    llm.push(openai_text("You like email."))
    daemon.invoke("mem", {"message": "how should we contact the customer?", "group_key": "cust-1"})
    assert "prefers email" in llm.requests[-1]["body"]["messages"][0]["content"]
    llm.push(openai_text("No idea."))
    daemon.invoke("mem", {"message": "how should we contact the customer?", "group_key": "cust-2"})
    assert "prefers email" not in llm.requests[-1]["body"]["messages"][0]["content"]
    other = Tenant(daemon.server, org="globex")
    other.agent("mem", memory="shared")
    llm.push(openai_text("No idea."))
    other.invoke("mem", {"message": "how should we contact the customer?", "group_key": "cust-1"})
    assert "prefers email" not in llm.requests[-1]["body"]["messages"][0]["content"]


def test_turns_on_one_conversation_run_in_arrival_order(daemon, llm):
    daemon.agent("chat")
    _, _, first = daemon.invoke("chat", {"message": "start", "stateful": True})
    cid = first["conversation_id"]
    llm.reset()
    llm.push(dict(openai_text("slow reply"), delay=1.0), openai_text("fast reply"))
    results = {}

    def call(name, delay):
        time.sleep(delay)
        results[name] = daemon.invoke("chat", {"message": name, "stateful": True, "conversation_id": cid})

    threads = [threading.Thread(target=call, args=("one", 0)), threading.Thread(target=call, args=("two", 0.3))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["one"][2]["response"] == "slow reply" and results["two"][2]["response"] == "fast reply"
    second_request = [m["content"] for m in llm.requests[1]["body"]["messages"][1:]]
    assert second_request[-3:] == ["one", "slow reply", "two"]  # it saw the first turn's reply


def test_each_environment_runs_its_deployed_version(daemon, llm):
    daemon.agent("versioned", instructions="Version one.")
    daemon.server.admin("POST", "/orgs/acme/environments", {"name": "dev"})
    v2 = {"name": "versioned", "instructions": "Version two.", "model": {"provider": "fake-openai", "name": "gpt-test"}}
    assert daemon.server.admin("POST", "/orgs/acme/agents/versioned/versions", {"config": v2})[2]["version"] == 2
    assert daemon.server.admin("PUT", "/orgs/acme/agents/versioned/deployments/dev", {"version": 2})[0] == 200
    daemon.invoke("versioned", {"message": "x"})
    assert llm.requests[-1]["body"]["messages"][0]["content"] == "Version one."
    daemon.invoke("versioned", {"message": "x"}, headers={"fl-api-env": "dev"})
    assert llm.requests[-1]["body"]["messages"][0]["content"] == "Version two."
    daemon.server.admin("PUT", "/orgs/acme/agents/versioned/deployments/prod", {"version": 2})
    daemon.invoke("versioned", {"message": "x"})
    assert llm.requests[-1]["body"]["messages"][0]["content"] == "Version two."


def test_every_turn_has_a_transcript_the_operator_can_read(daemon, llm):
    daemon.agent("bot", instructions="Be precise.")
    llm.push(openai_text("stateless answer", input_tokens=7, output_tokens=3))
    status, headers, body = daemon.invoke("bot", {"message": "question"})
    turn_id = headers["x-agentgate-turn-id"]
    status, _, turn = daemon.server.admin("GET", f"/orgs/acme/turns/{turn_id}")
    assert status == 200 and turn["conversation_id"] is None and turn["model_calls"] == 1
    assert turn["input_tokens"] == 7 and turn["terminated_reason"] is None
    assert turn["transcript"]["system"] == "Be precise."
    assert turn["transcript"]["messages"][-1]["content"] == "stateless answer"
    assert daemon.server.admin("GET", f"/orgs/other/turns/{turn_id}")[0] == 404
    assert daemon.server.admin("GET", "/orgs/acme/turns/turn_nope")[0] == 404


def assert_time_ordered(ids, prefix):
    """The prefix, 12 hex digits of the millisecond and 16 random ones; made later, sorted later."""
    assert all(re.fullmatch(prefix + r"[0-9a-f]{28}", i) for i in ids), ids
    assert ids == sorted(ids) and len(set(ids)) == len(ids), ids


def test_turn_ids_sort_in_the_order_the_turns_were_stored(daemon, llm):
    """Time-ordered ids keep the store's index of turn ids growing at its edge (docs/decisions.md)."""
    daemon.agent("bot")
    ids = []
    for answer in ("one", "two", "three"):
        llm.push(openai_text(answer))
        status, headers, _ = daemon.invoke("bot", {"message": "question"})
        assert status == 200
        ids.append(headers["x-agentgate-turn-id"])
        time.sleep(0.002)  # ids made in one millisecond are ordered only by their random part
    assert_time_ordered(ids, "turn_")
    for turn_id in ids:
        assert daemon.server.admin("GET", f"/orgs/acme/turns/{turn_id}")[0] == 200


def test_conversation_ids_sort_in_the_order_the_conversations_were_started(daemon, llm):
    """Like turn ids, so a conversation and its first messages go in at the edge of the indexes."""
    daemon.agent("chat")
    ids = []
    for answer in ("one", "two", "three"):
        llm.push(openai_text(answer))
        status, _, body = daemon.invoke("chat", {"message": "hello", "stateful": True})
        assert status == 200
        ids.append(body["conversation_id"])
        time.sleep(0.002)
    assert_time_ordered(ids, "conv_")
    llm.push(openai_text("again"))
    status, _, body = daemon.invoke("chat", {"message": "and?", "stateful": True, "conversation_id": ids[0]})
    assert status == 200 and body["conversation_id"] == ids[0]


def test_stored_records_keep_neither_additional_instructions_nor_host_context(daemon, llm):
    """SPEC §5: they apply to one call. And a turn's record keeps what it added, not a copy of the
    history it was sent, so records do not grow with the conversation."""
    daemon.agent("bot", instructions="Be precise.")
    extra = {"additional_instructions": "ONE-CALL-ONLY rule", "host_context": {"ssn": "078-05-1120"}}
    llm.push(openai_text("first answer"))
    _, headers, first = daemon.invoke("bot", {"message": "first question", "stateful": True, **extra})
    cid = first["conversation_id"]
    assert "ONE-CALL-ONLY" in llm.requests[-1]["body"]["messages"][0]["content"]  # the model saw them
    llm.push(openai_text("second answer"))
    _, headers, _ = daemon.invoke("bot", {"message": "second question", "stateful": True,
                                          "conversation_id": cid, **extra})
    _, _, turn = daemon.server.admin("GET", f"/orgs/acme/turns/{headers['x-agentgate-turn-id']}")
    transcript = turn["transcript"]
    assert transcript["system"] == "Be precise."
    assert transcript["history_messages"] == 2
    assert [m["content"] for m in transcript["messages"]] == ["second question", "second answer"]
    _, _, convo = daemon.conversation(cid)
    stored = json.dumps(convo) + json.dumps(turn) + str(stores.stored_bytes(daemon.server.store_url))
    assert "ONE-CALL-ONLY" not in stored and "078-05-1120" not in stored

