"""The Responses API (docs/openai.md, "Responses"; issue 58 §3), through the binary,
spoken to by the official `openai` SDK (tests/counterparts, pinned) with nothing but a base URL and
an API key: a two-turn conversation through previous_response_id (and the 409 for a response the
conversation moved on from), a background response polled to completion and one canceled, a
streamed one through the SDK's own stream helper, a pause for approval in the incomplete shape,
refusals naming the Responses API's param, and on PostgreSQL a response continued on another
server."""
import http.client
import json

import pytest

from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import FakeToolServer, openai_text, openai_tools
from test_openai_api import new_key, sdk, start, two_servers

TOOL = {"type": "http", "description": "Orders", "parameters": {"type": "object"}}


# A chat a client keeps itself, resent whole with its new message.
RESENT_HISTORY = [{"role": "user", "content": "Hi, I ordered A-1."}, {"role": "assistant", "content": "Noted."},
                  {"role": "user", "content": "When does it ship?"}]


def sent_messages(llm):
    return [(m["role"], m["content"]) for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]


def test_a_two_turn_conversation_goes_on_from_the_previous_response_and_not_from_an_older_one(
        start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("Noted: order A-1.", input_tokens=30, output_tokens=5))
    first = sdk(tenant, key, "response", model="bot", input="Hi, I ordered A-1.",
                instructions="Answer in one line.")
    assert first["requests"] == 1, first
    r1 = first["result"]
    assert r1["object"] == "response" and r1["status"] == "completed" and r1["id"].startswith("resp_")
    assert r1["output_text"] == "Noted: order A-1." and r1["model"] == "bot"
    assert r1["instructions"] == "Answer in one line." and r1["previous_response_id"] is None
    assert r1["usage"]["input_tokens"] == 30 and r1["usage"]["total_tokens"] == 35, r1
    assert "Answer in one line." in llm.requests[-1]["body"]["messages"][0]["content"]
    conversation = r1["agentgate"]["conversation_id"]
    assert conversation, r1

    llm.push(openai_text("It ships today."))
    r2 = sdk(tenant, key, "response", model="bot", input="When does it ship?", previous=r1["id"])["result"]
    assert r2["output_text"] == "It ships today." and r2["previous_response_id"] == r1["id"], r2
    assert r2["agentgate"]["conversation_id"] == conversation and r2["id"] != r1["id"]
    # The model saw the stored conversation as the turn's history.
    assert sent_messages(llm) == [("user", "Hi, I ordered A-1."), ("assistant", "Noted: order A-1."),
                                  ("user", "When does it ship?")]
    # r1 is no longer the conversation's latest: 409, not retried by the SDK, no model call.
    calls = len(llm.requests)
    stale = sdk(tenant, key, "response", model="bot", input="And A-2?", previous=r1["id"])
    error = stale["error"]
    assert error["status"] == 409 and error["class"] == "ConflictError", stale
    assert error["code"] == "previous_response_not_latest" and error["param"] == "previous_response_id"
    assert error["should_retry"] == "false" and stale["requests"] == 1
    assert len(llm.requests) == calls
    _, _, listed = tenant.server.admin("GET", f"/orgs/{tenant.org}/conversations")
    assert [c["id"] for c in listed["conversations"]] == [conversation], listed


def test_a_background_response_is_polled_to_completion_and_continued(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(dict(openai_text("Done in the background."), delay=0.5))
    out = sdk(tenant, key, "background", model="bot", input="Summarize A-1.")["result"]
    assert out["created"]["status"] == "queued" and out["created"]["background"] is True, out
    assert out["seen"][-1] == "completed" and "in_progress" in out["seen"], out
    final = out["final"]
    assert final["id"] == out["created"]["id"] and final["output_text"] == "Done in the background."
    # Its run is the same one /api/runs shows, and its answering turn continues it.
    run_id = "run_" + final["id"][len("resp_"):]
    status, _, run = tenant.server.request("GET", f"/api/runs/{run_id}", None,
                                           {"authorization": f"Bearer {key}"})
    assert status == 200 and run["status"] == "completed", run
    llm.push(openai_text("Yes."))
    next_one = sdk(tenant, key, "response", model="bot", input="Anything else?", previous=final["id"])
    assert next_one["result"]["output_text"] == "Yes.", next_one
    assert ("assistant", "Done in the background.") in sent_messages(llm)


def test_a_background_response_is_canceled_and_reads_cancelled(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(dict(openai_text("too late"), delay=10))
    out = sdk(tenant, key, "background", model="bot", input="Slow one.", cancel="true")["result"]
    assert out["final"]["status"] == "cancelled", out
    read = sdk(tenant, key, "retrieve", id=out["created"]["id"])["result"]
    assert read["status"] == "cancelled" and read["output"] == [], read
    missing = sdk(tenant, key, "retrieve", id="resp_00000000000000000000000000000000")["error"]
    assert missing["status"] == 404 and missing["class"] == "NotFoundError", missing


def test_a_streamed_response_is_the_typed_events_the_sdk_accumulates_and_can_be_continued(
        start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("It ships today.", input_tokens=12, output_tokens=4))
    out = sdk(tenant, key, "response-stream", model="bot", input="When does A-1 ship?")["result"]
    assert "error" not in out, out
    types = [e["type"] for e in out["events"]]
    assert types[:2] == ["response.created", "response.in_progress"], types
    assert types[-4:] == ["response.output_text.done", "response.content_part.done",
                          "response.output_item.done", "response.completed"], types
    assert "response.output_text.delta" in types
    assert [e["sequence_number"] for e in out["events"]] == list(range(len(types)))
    deltas = "".join(e["delta"] for e in out["events"] if e["type"] == "response.output_text.delta")
    assert deltas == "It ships today."
    final = out["final"]
    assert final["status"] == "completed" and final["output_text"] == "It ships today.", final
    assert final["id"] == out["events"][0]["response"]["id"] and final["usage"]["output_tokens"] == 4
    # The streamed response is read back, and continued.
    assert sdk(tenant, key, "retrieve", id=final["id"])["result"]["output_text"] == "It ships today."
    llm.push(openai_text("You're welcome."))
    after = sdk(tenant, key, "response", model="bot", input="Thanks!", previous=final["id"])["result"]
    assert after["output_text"] == "You're welcome." and after["previous_response_id"] == final["id"]


def test_a_pause_for_approval_is_an_incomplete_response_whose_run_is_decided_then_continued(
        start_server, llm):
    tools = FakeToolServer()
    try:
        tenant = start(start_server, llm)
        tenant.agent("shop", tools=[{**TOOL, "name": "refund", "method": "POST", "approval": "always",
                                     "url": f"http://127.0.0.1:{tools.port}/refund"}])
        key = new_key(tenant, agents=("shop",), permissions=("chat", "approve"))
        llm.push(openai_tools([("refund", {"order": "A-1"})]))
        paused = sdk(tenant, key, "response", model="shop", input="Refund A-1.")["result"]
        assert paused["status"] == "incomplete", paused
        assert paused["incomplete_details"] == {"reason": "approval_required"}
        run_id = paused["agentgate"]["run_id"]
        assert paused["id"] == "resp_" + run_id[len("run_"):]
        assert paused["agentgate"]["pending_actions"][0]["tool"] == "refund"
        assert tools.calls == []
        # Not continued while it waits.
        waiting = sdk(tenant, key, "response", model="shop", input="Well?", previous=paused["id"])["error"]
        assert waiting["status"] == 409 and waiting["param"] == "previous_response_id", waiting
        llm.push(openai_text("Refunded."))
        status, _, done = tenant.server.request(
            "POST", f"/api/runs/{run_id}/approvals", {"decisions": [{"call_id": "call_0", "approve": True}]},
            {"authorization": f"Bearer {key}", "content-type": "application/json"}, timeout=30)
        assert status == 200 and done["response"] == "Refunded.", done
        read = sdk(tenant, key, "retrieve", id=paused["id"])["result"]
        assert read["status"] == "completed" and read["output_text"] == "Refunded.", read
        llm.push(openai_text("Anything else?"))
        after = sdk(tenant, key, "response", model="shop", input="Thanks.", previous=paused["id"])
        assert after["result"]["status"] == "completed", after
        assert ("assistant", "Refunded.") in sent_messages(llm)
    finally:
        tools.close()


def test_bad_input_and_refusals_name_the_responses_param(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    bad_cases = [
        (dict(input=[]), "input"),
        (dict(input="hi", previous="resp_zz"), "previous_response_id"),
        (dict(input="hi", previous="resp_00", store="false"), "store"),
    ]
    for args, param in bad_cases:
        error = sdk(tenant, key, "response", model="bot", **args)["error"]
        assert error["status"] == 400 and error["class"] == "BadRequestError", (args, error)
        assert error["param"] == param, (args, error)
    # Earlier messages with previous_response_id: the conversation keeps them already.
    earlier = sdk(tenant, key, "response", model="bot", previous="resp_00",
                  input=[{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                         {"role": "user", "content": "c"}])["error"]
    assert earlier["status"] == 400 and earlier["param"] == "input", earlier
    unknown = sdk(tenant, key, "response", model="bot", input="hi",
                  previous="resp_0123456789abcdef0123456789abcdef")["error"]
    assert unknown["status"] == 404 and unknown["class"] == "NotFoundError", unknown
    assert unknown["param"] == "previous_response_id", unknown
    # One this key may not read (a background response of an agent it has no grant on, still
    # queued or running) is just as unknown: it says so and names nothing else (issue 72 §5).
    tenant.agent("other")
    llm.push({**openai_text("Later."), "delay": 2.0})
    status, _, queued = tenant.server.request(
        "POST", "/v1/responses", {"model": "other", "input": "hi", "background": True},
        {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
         "fl-api-token": tenant.token})
    assert status == 200 and queued["status"] in ("queued", "in_progress"), queued
    hidden = sdk(tenant, key, "response", model="bot", input="hi", previous=queued["id"])["error"]
    assert hidden["status"] == 404 and hidden["param"] == "previous_response_id", hidden
    assert "run_" not in hidden["message"] and "other" not in hidden["message"], hidden
    refused = sdk(tenant, new_key(tenant, permissions=()), "response", model="bot", input="hi")["error"]
    assert refused["status"] == 403 and refused["class"] == "PermissionDeniedError", refused
    status, _, body = tenant.server.request(
        "POST", "/v1/responses", {"model": "bot", "input": "hi", "tools": [{"type": "web_search"}]},
        {"authorization": f"Bearer {key}", "content-type": "application/json"})
    assert status == 400 and body["error"]["param"] == "tools[0].type", body


def test_a_stateless_response_keeps_nothing_and_an_idempotency_key_replays_a_stored_one(
        start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("Stateless."))
    stateless = sdk(tenant, key, "response", model="bot", store="false",
                    input=[{"role": "user", "content": "I ordered A-1."},
                           {"role": "assistant", "content": "Noted."},
                           {"role": "user", "content": "Status?"}])["result"]
    assert stateless["output_text"] == "Stateless." and stateless["agentgate"]["conversation_id"] is None
    assert sent_messages(llm) == [("user", "I ordered A-1."), ("assistant", "Noted."), ("user", "Status?")]
    not_stored = sdk(tenant, key, "response", model="bot", input="more", previous=stateless["id"])["error"]
    assert not_stored["status"] == 400 and not_stored["param"] == "previous_response_id", not_stored
    llm.push(openai_text("Once."))
    first = sdk(tenant, key, "response", model="bot", input="pay once", idempotency_key="k-1")["result"]
    again = sdk(tenant, key, "response", model="bot", input="pay once", idempotency_key="k-1")["result"]
    assert again == first and first["output_text"] == "Once."
    assert len(llm.requests) == 2  # the replay ran no turn


@pytest.mark.postgres
def test_a_response_created_on_one_server_is_continued_and_read_on_the_other(start_server, llm):
    tenant, other, key = two_servers(start_server, llm)
    llm.push(openai_text("On the first."))
    r1 = sdk(tenant, key, "response", model="bot", input="Hello.")["result"]
    llm.push(openai_text("On the second."))
    r2 = sdk(other, key, "response", model="bot", input="Again.", previous=r1["id"])["result"]
    assert r2["output_text"] == "On the second." and r2["previous_response_id"] == r1["id"], r2
    assert sent_messages(llm) == [("user", "Hello."), ("assistant", "On the first."), ("user", "Again.")]
    stale = sdk(tenant, key, "response", model="bot", input="Fork?", previous=r1["id"])["error"]
    assert stale["status"] == 409 and stale["code"] == "previous_response_not_latest", stale
    llm.push(dict(openai_text("Background on the first."), delay=0.3))
    out = sdk(tenant, key, "background", model="bot", input="Later.")["result"]
    read = sdk(other, key, "retrieve", id=out["created"]["id"])["result"]
    assert read["id"] == out["created"]["id"], read


def test_locations_start_with_the_public_url_behind_a_balancer(start_server, llm):
    tenant = start(start_server, llm, 'public_url = "https://gw.example.com/agentgate/"')
    key = new_key(tenant)
    llm.push(openai_text("Later."))
    auth = {"authorization": f"Bearer {key}", "content-type": "application/json"}
    status, head, body = tenant.server.request(
        "POST", "/v1/responses", {"model": "bot", "input": "hi", "background": True}, auth)
    assert status == 200 and body["status"] == "queued", body
    run_id = "run_" + body["id"][len("resp_"):]
    assert head["location"] == f"https://gw.example.com/agentgate/api/runs/{run_id}", head
    status, head, queued = tenant.server.request(
        "POST", "/api/agents/bot/invoke", {"message": "hi", "background": True}, auth)
    assert status == 202 and head["location"] == (
        f"https://gw.example.com/agentgate/api/runs/{queued['run_id']}"), head


def test_a_streamed_call_with_an_idempotency_key_replays_its_whole_stream(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("Paid once."))
    first = sdk(tenant, key, "response-stream", model="bot", input="pay", idempotency_key="s-1")["result"]
    again = sdk(tenant, key, "response-stream", model="bot", input="pay", idempotency_key="s-1")["result"]
    assert first["final"]["output_text"] == "Paid once." and first["final"]["status"] == "completed"
    # The replay is a stream the SDK reads, of the same response, and ran no turn.
    assert again["final"]["id"] == first["final"]["id"], again
    assert again["final"]["output_text"] == "Paid once."
    assert [e["type"] for e in again["events"]][-1] == "response.completed"
    llm.push(openai_text("Chat once."))
    user = [{"role": "user", "content": "pay"}]
    chat = sdk(tenant, key, "stream", model="bot", messages=user, idempotency_key="s-2")["result"]
    replay = sdk(tenant, key, "stream", model="bot", messages=user, idempotency_key="s-2")["result"]
    text = lambda chunks: "".join(c["choices"][0]["delta"].get("content") or ""
                                  for c in chunks if c["choices"])
    assert text(chat["chunks"]) == text(replay["chunks"]) == "Chat once.", replay
    assert replay["chunks"][0]["id"] == chat["chunks"][0]["id"]
    assert len(llm.requests) == 2


def test_the_guards_hold_no_blocked_text_in_any_event_and_streams_count_toward_the_tokens_limit(
        start_server, llm):
    server = start_server(config_for(llm) + "\n[runs]\nmax_streams_per_token = 1\n",
                          env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("guarded", safety={"block_patterns": ["(?i)internal only"], "placeholder": "Withheld."})
    key = new_key(tenant, agents=("guarded",))
    llm.push(dict(openai_text("The plan is INTERNAL ONLY, do not share it with anyone outside."), piece=3))
    out = sdk(tenant, key, "response-stream", model="guarded", input="plan?")["result"]
    assert "INTERNAL" not in json.dumps(out).upper(), out
    final = out["final"]
    assert final["status"] == "incomplete" and final["incomplete_details"] == {"reason": "content_filter"}
    assert final["output_text"] == "Withheld." and final["agentgate"]["blocked"] is True, final
    # A streamed response takes the token's one place: a second is refused before its turn, in
    # OpenAI's shape, while the first still streams.
    llm.push(dict(openai_text("Slow."), delay=3))
    auth = {"authorization": f"Bearer {key}", "content-type": "application/json"}
    body = json.dumps({"model": "guarded", "input": "slow", "stream": True})
    first = http.client.HTTPConnection(server.host, server.port, timeout=30)
    first.request("POST", "/v1/responses", body, auth)
    held = first.getresponse()
    assert held.status == 200
    status, head, refused = server.request("POST", "/v1/responses",
                                           {"model": "guarded", "input": "again", "stream": True}, auth)
    assert status == 429 and refused["error"]["code"] == "too_many_streams", refused
    assert refused["error"]["type"] == "rate_limit_error" and "retry-after" in head, head
    assert "response.completed" in held.read().decode()
    first.close()


def test_a_json_schema_text_format_holds_the_answer_and_is_asked_natively(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    schema = {"type": "object", "properties": {"escalate": {"type": "boolean"}}, "required": ["escalate"],
              "additionalProperties": False}
    llm.push(openai_text('{"escalate": true}'))
    out = sdk(tenant, key, "response", model="bot", input="Escalate order A-1?",
              text={"format": {"type": "json_schema", "name": "verdict", "schema": schema, "strict": True}})
    result = out["result"]
    assert result["status"] == "completed" and json.loads(result["output_text"]) == {"escalate": True}, out
    asked = llm.requests[-1]["body"]["response_format"]
    assert asked["type"] == "json_schema" and asked["json_schema"]["schema"]["required"] == ["escalate"], asked
    bad = sdk(tenant, key, "response", model="bot", input="hi",
              text={"format": {"type": "json_schema", "name": "v", "schema": {"type": "object", "$ref": "#"}}})
    error = bad["error"]
    assert error["status"] == 400 and error["param"] == "text.format.schema.$ref", bad


def test_a_resent_history_starts_a_stored_conversation_that_previous_response_id_continues(
        start_server, llm):
    """Issue 74 §3: a client that keeps its own history (the AI SDK's default, LangChain's
    useResponsesApi) resends it with store left at its default; it is the turn's history, and it
    seeds the response's new conversation."""
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("It ships today."))
    r1 = sdk(tenant, key, "response", model="bot", input=RESENT_HISTORY)["result"]
    assert r1["output_text"] == "It ships today.", r1
    assert sent_messages(llm) == [(m["role"], m["content"]) for m in RESENT_HISTORY]
    llm.push(openai_text("No, A-2 is separate."))
    r2 = sdk(tenant, key, "response", model="bot", input="And A-2?", previous=r1["id"])["result"]
    assert r2["agentgate"]["conversation_id"] == r1["agentgate"]["conversation_id"], r2
    assert sent_messages(llm) == [("user", "Hi, I ordered A-1."), ("assistant", "Noted."),
                                  ("user", "When does it ship?"), ("assistant", "It ships today."),
                                  ("user", "And A-2?")]


def test_a_reference_to_our_reply_continues_its_conversation_instead_of_storing_it_again(
        start_server, llm):
    """Issue 74 §3: the AI SDK's second message sends our reply as an item_reference; the Agents
    SDK's session resends it with the id we gave it. Either continues the conversation whose latest
    reply it is; an older one is 409, an unknown one 400, each naming the input item."""
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("Noted: order A-1."))
    r1 = sdk(tenant, key, "response", model="bot", input="Hi, I ordered A-1.")["result"]
    reply = r1["output"][0]
    assert reply["id"].startswith("msg_"), r1
    llm.push(openai_text("It ships today."))
    r2 = sdk(tenant, key, "response", model="bot",
             input=[{"role": "user", "content": "Hi, I ordered A-1."},
                    {"type": "item_reference", "id": reply["id"]},
                    {"role": "user", "content": "When does it ship?"}])["result"]
    conversation = r1["agentgate"]["conversation_id"]
    assert r2["agentgate"]["conversation_id"] == conversation, r2
    assert sent_messages(llm) == [("user", "Hi, I ordered A-1."), ("assistant", "Noted: order A-1."),
                                  ("user", "When does it ship?")]
    # The reply resent whole, as a session keeps it.
    llm.push(openai_text("Tomorrow."))
    r3 = sdk(tenant, key, "response", model="bot",
             input=[{"role": "user", "content": "When does it ship?"}, r2["output"][0],
                    {"role": "user", "content": "And arrive?"}])["result"]
    assert r3["agentgate"]["conversation_id"] == conversation, r3
    assert len(sent_messages(llm)) == 5
    _, _, listed = tenant.server.admin("GET", f"/orgs/{tenant.org}/conversations")
    assert [c["id"] for c in listed["conversations"]] == [conversation], listed
    calls = len(llm.requests)
    stale = sdk(tenant, key, "response", model="bot",
                input=[{"type": "item_reference", "id": reply["id"]}, {"role": "user", "content": "x"}])
    assert stale["error"]["status"] == 409 and stale["error"]["param"] == "input[0].id", stale
    unknown = sdk(tenant, key, "response", model="bot",
                  input=[{"type": "item_reference", "id": "msg_0123456789abcdef0123456789abcdef"},
                         {"role": "user", "content": "x"}])
    assert unknown["error"]["status"] == 400 and unknown["error"]["param"] == "input[0].id", unknown
    assert len(llm.requests) == calls


def test_a_reference_to_a_conversation_item_or_from_a_stateless_call_reads_the_stored_text(
        start_server, llm):
    """Issue 74 §3: an item_reference to a conversation's item (msg_<conv>_<seq>), or to our reply
    from a call with "store": false, is that message's text in the turn's history; one the key may
    not read is a 400 naming it, before any model call."""
    tenant = start(start_server, llm)
    key = new_key(tenant)
    made = sdk(tenant, key, "conversation", op="create", items=RESENT_HISTORY[:2])["result"]
    listed = sdk(tenant, key, "conversation", op="items-list", id=made["id"], order="asc")["result"]
    first, second = (i["id"] for i in listed["items"])
    llm.push(openai_text("It ships today."))
    out = sdk(tenant, key, "response", model="bot",
              input=[{"type": "item_reference", "id": first}, {"type": "item_reference", "id": second},
                     {"role": "user", "content": "When does it ship?"}])["result"]
    assert out["output_text"] == "It ships today.", out
    assert sent_messages(llm) == [(m["role"], m["content"]) for m in RESENT_HISTORY]

    llm.push(openai_text("Stateless."))
    out = sdk(tenant, key, "response", model="bot", store="false",
              input=[{"role": "user", "content": "Hi, I ordered A-1."},
                     {"type": "item_reference", "id": out["output"][0]["id"]},
                     {"role": "user", "content": "Again?"}])["result"]
    assert out["output_text"] == "Stateless." and out["store"] is False, out
    assert sent_messages(llm) == [("user", "Hi, I ordered A-1."), ("assistant", "It ships today."),
                                  ("user", "Again?")]

    calls = len(llm.requests)
    assert tenant.server.admin("POST", f"/orgs/{tenant.org}/environments", {"name": "dev"})[0] == 201
    _, _, tok = tenant.server.admin("POST", f"/orgs/{tenant.org}/tokens", {"name": "dev", "environments": ["dev"]})
    tenant.server.admin("PUT", f"/orgs/{tenant.org}/grants",
                        {"token_id": tok["id"], "agent_id": "bot", "permissions": ["chat"]})
    other_env = tok["api_keys"]["dev"]
    for who, ref in ((key, made["id"].replace("conv_", "msg_") + "_99"), (other_env, first),
                     (key, "msg_0123456789abcdef0123456789abcdef_1")):
        refused = sdk(tenant, who, "response", model="bot", store="false",
                      input=[{"type": "item_reference", "id": ref}, {"role": "user", "content": "x"}])
        error = refused["error"]
        assert error["status"] == 400 and error["param"] == "input[0].id", (ref, refused)
    assert len(llm.requests) == calls


def test_a_background_response_keeps_the_history_it_was_sent_until_it_runs(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("It ships today."))
    out = sdk(tenant, key, "background", model="bot", input=RESENT_HISTORY)["result"]
    assert out["final"]["status"] == "completed" and out["final"]["output_text"] == "It ships today.", out
    assert sent_messages(llm) == [(m["role"], m["content"]) for m in RESENT_HISTORY]


def test_the_response_says_what_was_asked_store_text_format_and_metadata(start_server, llm):
    """Issue 74 §5: the Response echoes `store`, `text.format` and `metadata` as asked."""
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("Fine."))
    plain = sdk(tenant, key, "response", model="bot", input="hi", store="false",
                metadata={"ticket": "T-1"})["result"]
    assert plain["store"] is False and plain["metadata"] == {"ticket": "T-1"}, plain
    assert plain["text"]["format"] == {"type": "text"} and plain["instructions"] is None
    llm.push(openai_text('{"ok": true}'))
    fmt = {"type": "json_schema", "name": "verdict", "strict": True,
           "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                      "additionalProperties": False}}
    held = sdk(tenant, key, "response", model="bot", input="ok?", text={"format": fmt})["result"]
    assert held["store"] is True and held["text"]["format"] == fmt and held["metadata"] == {}, held
    too_many = sdk(tenant, key, "response", model="bot", input="hi",
                   metadata={f"k{i}": "v" for i in range(17)})["error"]
    assert too_many["status"] == 400 and too_many["param"] == "metadata", too_many


def test_a_plain_stored_response_is_read_back_and_an_unstored_one_is_not(start_server, llm):
    """Issue 74 §5: every stored response is readable, a plain one (no run) from its turn and the
    messages it wrote; one made with store false, or of an agent the key has no grant on, is 404."""
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("Noted: order A-1.", input_tokens=30, output_tokens=5))
    made = sdk(tenant, key, "response", model="bot", input="Hi, I ordered A-1.")["result"]
    read = sdk(tenant, key, "retrieve", id=made["id"])["result"]
    assert read["status"] == "completed" and read["output_text"] == "Noted: order A-1.", read
    assert read["output"][0]["id"] == made["output"][0]["id"] and read["usage"]["total_tokens"] == 35, read
    assert read["agentgate"]["conversation_id"] == made["agentgate"]["conversation_id"]
    llm.push(openai_text("Fine."))
    unstored = sdk(tenant, key, "response", model="bot", input="hi", store="false")["result"]
    missing = sdk(tenant, key, "retrieve", id=unstored["id"])["error"]
    assert missing["status"] == 404 and missing["class"] == "NotFoundError", missing
    other = sdk(tenant, new_key(tenant, permissions=()), "retrieve", id=made["id"])["error"]
    assert other["status"] == 404, other


@pytest.mark.both_stores
def test_what_a_response_was_asked_and_its_input_items_are_read_back_with_it(start_server, llm):
    """Issue 74 §5: instructions, previous_response_id, conversation, text.format and metadata as
    asked, on read-back too, for plain, background and streamed responses; and its input items."""
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("Noted: order A-1."))
    first = sdk(tenant, key, "response", model="bot", input=RESENT_HISTORY[:1],
                instructions="Answer in one line.", metadata={"ticket": "T-1"})["result"]
    read = sdk(tenant, key, "retrieve", id=first["id"])["result"]
    for field in ("instructions", "metadata", "text", "previous_response_id", "conversation", "store"):
        assert read[field] == first[field], (field, read)
    assert read["instructions"] == "Answer in one line." and read["metadata"] == {"ticket": "T-1"}

    llm.push(openai_text('{"ok": true}'))
    fmt = {"type": "json_object"}
    second = sdk(tenant, key, "response", model="bot", input="ok?", previous=first["id"],
                 text={"format": fmt})["result"]
    read = sdk(tenant, key, "retrieve", id=second["id"])["result"]
    assert read["previous_response_id"] == first["id"] and read["text"]["format"] == fmt, read
    assert read["instructions"] is None and read["metadata"] == {}

    llm.push(dict(openai_text("In the background."), delay=0.3))
    out = sdk(tenant, key, "background", model="bot", input="Later.", metadata={"kind": "bg"})["result"]
    assert out["created"]["metadata"] == {"kind": "bg"}, out
    assert out["final"]["metadata"] == {"kind": "bg"} and out["final"]["background"] is True, out
    llm.push(openai_text("Streamed."))
    streamed = sdk(tenant, key, "response-stream", model="bot", input="Stream it.",
                   metadata={"kind": "stream"})["result"]["final"]
    read = sdk(tenant, key, "retrieve", id=streamed["id"])["result"]
    assert read["metadata"] == {"kind": "stream"} and read["output_text"] == "Streamed.", read

    # The input items: the seeded history and the user's message, newest first by default.
    llm.push(openai_text("It ships today."))
    resent = sdk(tenant, key, "response", model="bot", input=RESENT_HISTORY)["result"]
    items = sdk(tenant, key, "input-items", id=resent["id"], limit=2)["result"]
    assert items["pages"] == 2, items
    assert [(i["role"], i["content"][0]["text"]) for i in items["items"]] == [
        (m["role"], m["content"]) for m in reversed(RESENT_HISTORY)]
    asc = sdk(tenant, key, "input-items", id=second["id"], order="asc")["result"]
    assert [(i["role"], i["content"][0]["text"]) for i in asc["items"]] == [("user", "ok?")], asc
    missing = sdk(tenant, key, "input-items", id="resp_0123456789abcdef")["error"]
    assert missing["status"] == 404, missing
