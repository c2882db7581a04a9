"""Agents as A2A 1.0 agents (docs/a2a.md, issue 77), through the binary, spoken to by the official
A2A JS SDK's client (tests/counterparts/a2a_client.mjs, pinned) on both of its bindings, JSON-RPC
and HTTP+JSON, and by raw HTTP for what the SDK never sends: the card, a task's send, stream,
read, cancel and subscribe, a resent message, and the protocol's errors."""
import json
import time

import counterparts
import pytest
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import FakeToolServer, openai_text, openai_tools
from test_openai_api import new_key
from test_run_streaming import without_ids

BINDINGS = ["JSONRPC", "HTTP+JSON"]


def start(start_server, llm):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("bot", description="Answers questions about orders.")
    return tenant


def interface(tenant, agent="bot", env="prod"):
    return f"http://{tenant.server.host}:{tenant.server.port}/a2a/{tenant.org}/{env}/{agent}/"


def client(tenant, key, transport, call, **args):
    url = args.pop("url", interface(tenant))
    return counterparts.run_script(
        "a2a_client.mjs", ["--url", url, "--key", key, "--transport", transport, "--call", call], args)


def rpc(tenant, key, method, params, version="1.0", agent="bot"):
    headers = {"authorization": f"Bearer {key}", "content-type": "application/json"}
    if version is not None:
        headers["a2a-version"] = version
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
    return tenant.server.request("POST", f"/a2a/{tenant.org}/prod/{agent}/", body, headers=headers)


def wait_for_model_calls(llm, n, within=10):
    """Until the model has been called n times (a task returned at once has reached its model)."""
    deadline = time.time() + within
    while len(llm.requests) < n and time.time() < deadline:
        time.sleep(0.05)
    assert len(llm.requests) >= n, llm.requests


def reply_text(task):
    return "".join(p.get("text", "") for a in task.get("artifacts", []) for p in a["parts"])


def streamed_text(events):
    """The reply as a follower of the stream has it: appends, or a replacement."""
    text = ""
    for event in events:
        update = event.get("artifactUpdate")
        if update:
            piece = "".join(p.get("text", "") for p in update["artifact"]["parts"])
            text = text + piece if update.get("append") else piece
    return text


@pytest.mark.parametrize("transport", BINDINGS)
def test_the_sdk_finds_the_agent_by_its_card_and_is_answered_a_completed_task(start_server, llm, transport):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    card = client(tenant, key, transport, "card")["result"]
    assert card["name"] == "bot" and card["description"] == "Answers questions about orders."
    assert card["version"] == "1"
    assert {(i["protocolBinding"], i["protocolVersion"], i["url"]) for i in card["supportedInterfaces"]} == {
        ("JSONRPC", "1.0", interface(tenant)), ("HTTP+JSON", "1.0", interface(tenant)),
        ("JSONRPC", "0.3", interface(tenant))}
    assert card["capabilities"]["streaming"] is True and card["capabilities"]["pushNotifications"] is True
    assert card["skills"][0]["id"] == "bot"

    llm.push(openai_text("Order A-1 ships today."))
    task = client(tenant, key, transport, "send", text="When does A-1 ship?")["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED", task
    assert task["id"].startswith("run_") and task["contextId"].startswith("conv_")
    assert reply_text(task) == "Order A-1 ships today."
    assert llm.requests[-1]["body"]["messages"][-1]["content"] == "When does A-1 ship?"
    # The task is the run: read back by GetTask, and seen by the runs API.
    again = client(tenant, key, transport, "get", task=task["id"])["result"]
    assert again["status"]["state"] == "TASK_STATE_COMPLETED" and reply_text(again) == "Order A-1 ships today."
    status, _, run = tenant.server.request("GET", f"/api/runs/{task['id']}",
                                           headers={"authorization": f"Bearer {key}"})
    assert status == 200 and run["status"] == "completed", run

    # The context is the conversation: the next message continues it.
    llm.push(openai_text("Yes, by courier."))
    follow = client(tenant, key, transport, "send", text="By courier?", context=task["contextId"])["result"]["task"]
    assert follow["contextId"] == task["contextId"] and reply_text(follow) == "Yes, by courier."
    sent = [(m["role"], m["content"]) for m in llm.requests[-1]["body"]["messages"][1:]]
    assert sent == [("user", "When does A-1 ship?"), ("assistant", "Order A-1 ships today."),
                    ("user", "By courier?")]


def test_a_message_sent_twice_is_one_task_and_one_model_call(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("Once."))
    first = client(tenant, key, "JSONRPC", "send", text="hi", message_id="m-1")["result"]["task"]
    again = client(tenant, key, "HTTP+JSON", "send", text="hi", message_id="m-1")["result"]["task"]
    assert again["id"] == first["id"] and reply_text(again) == "Once."
    assert len(llm.requests) == 1
    # Another message under the same id is refused, naming the field.
    other = client(tenant, key, "JSONRPC", "send", text="something else", message_id="m-1")["error"]
    assert other["reason"] == "INVALID_PARAMS" and "message.messageId" in other["message"], other
    assert len(llm.requests) == 1


@pytest.mark.parametrize("transport", BINDINGS)
def test_a_streamed_message_is_the_task_then_its_reply_as_artifact_updates_then_its_end(
        start_server, llm, transport):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    reply = "The parcel left the warehouse this morning and arrives on Thursday before noon."
    llm.push(dict(openai_text(reply), piece=6, event_delay=0.02))
    events = client(tenant, key, transport, "stream", text="Where is my parcel?")["result"]
    assert "task" in events[0], events
    task_id = events[0]["task"]["id"]
    updates = [e["artifactUpdate"] for e in events if "artifactUpdate" in e]
    assert len(updates) >= 3, events  # the reply came in pieces, not whole at the end
    assert all(u["taskId"] == task_id and u["artifact"]["artifactId"] == "reply" for u in updates)
    assert updates[-1]["lastChunk"] is True
    assert streamed_text(events) == reply
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED", events[-1]
    task = client(tenant, key, transport, "get", task=task_id)["result"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED" and reply_text(task) == reply


@pytest.mark.parametrize("transport", BINDINGS)
def test_a_task_returned_at_once_is_followed_by_subscribe_and_read_back(start_server, llm, transport):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(dict(openai_text("Done after a while."), delay=1.5))
    task = client(tenant, key, transport, "send", text="slow one", immediately="true")["result"]["task"]
    assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"), task
    events = client(tenant, key, transport, "subscribe", task=task["id"])["result"]
    assert events[0]["task"]["id"] == task["id"], events
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED", events
    assert streamed_text(events) == "Done after a while."
    # An ended task has nothing to subscribe to: the protocol's error.
    ended = client(tenant, key, transport, "subscribe", task=task["id"])["error"]
    assert ended["name"] == "UnsupportedOperationError", ended


@pytest.mark.parametrize("transport", BINDINGS)
def test_a_running_task_is_canceled_and_an_ended_one_is_not_cancelable(start_server, llm, transport):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(dict(openai_text("too late"), delay=20))
    task = client(tenant, key, transport, "send", text="slow", immediately="true")["result"]["task"]
    wait_for_model_calls(llm, 1)
    canceled = client(tenant, key, transport, "cancel", task=task["id"])["result"]
    assert canceled["status"]["state"] == "TASK_STATE_CANCELED", canceled
    again = client(tenant, key, transport, "cancel", task=task["id"])["result"]
    assert again["status"]["state"] == "TASK_STATE_CANCELED"

    llm.push(openai_text("quick"))
    done = client(tenant, key, transport, "send", text="quick")["result"]["task"]
    refused = client(tenant, key, transport, "cancel", task=done["id"])["error"]
    assert refused["name"] == "TaskNotCancelableError", refused


@pytest.mark.parametrize("transport", BINDINGS)
def test_tasks_of_other_agents_callers_or_none_are_not_found(start_server, llm, transport):
    tenant = start(start_server, llm)
    tenant.agent("other")
    key = new_key(tenant, agents=("bot", "other"))
    llm.push(openai_text("mine"))
    task = client(tenant, key, transport, "send", text="hi")["result"]["task"]
    missing = client(tenant, key, transport, "get", task="run_0000000000000000")["error"]
    assert missing["name"] == "TaskNotFoundError", missing
    # The same task asked of another agent's interface, or by a key of another organization.
    elsewhere = client(tenant, key, transport, "get", task=task["id"], url=interface(tenant, agent="other"))
    assert elsewhere["error"]["name"] == "TaskNotFoundError", elsewhere
    stranger = Tenant(tenant.server, org="globex")
    stranger.agent("bot")
    foreign = client(stranger, new_key(stranger), transport, "get", task=task["id"])["error"]
    assert foreign["name"] == "TaskNotFoundError", foreign


def test_a_caller_without_a_grant_is_rejected_and_the_task_is_not_kept(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant, permissions=())
    status, _, body = rpc(tenant, key, "SendMessage",
                          {"message": {"messageId": "r-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}})
    assert status == 200, body
    task = body["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_REJECTED", task
    assert "forbidden" in task["status"]["message"]["parts"][0]["text"]
    _, _, read = rpc(tenant, new_key(tenant), "GetTask", {"id": task["id"]})
    assert read["error"]["code"] == -32001, read
    assert len(llm.requests) == 0
    # An agent not deployed in the environment is not there at all.
    status, _, body = rpc(tenant, key, "SendMessage",
                          {"message": {"messageId": "r-2", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
                          agent="nobody")
    assert status == 404 and body["error"]["code"] == -32600, body


def test_the_protocols_errors_name_what_is_wrong(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)

    def message(**fields):
        return {"message": {"messageId": "e-1", "role": "ROLE_USER", "parts": [{"text": "hi"}], **fields}}

    _, _, no_version = rpc(tenant, key, "SendMessage", message(), version=None)
    assert no_version["error"]["code"] == -32009, no_version
    _, _, wrong_version = rpc(tenant, key, "SendMessage", message(), version="2.0")
    assert wrong_version["error"]["code"] == -32009, wrong_version
    _, _, file_part = rpc(tenant, key, "SendMessage",
                          message(parts=[{"url": "https://example.com/a.pdf", "mediaType": "application/pdf"}]))
    assert file_part["error"]["code"] == -32005, file_part
    _, _, no_parts = rpc(tenant, key, "SendMessage", message(parts=[]))
    assert no_parts["error"]["code"] == -32602, no_parts
    violation = no_parts["error"]["data"][1]["fieldViolations"][0]
    assert violation["field"] == "message.parts", no_parts
    _, _, unknown_context = rpc(tenant, key, "SendMessage", message(contextId="conv_ffffffffffffffff"))
    assert unknown_context["error"]["code"] == -32602, unknown_context
    _, _, no_method = rpc(tenant, key, "message/teleport", {})
    assert no_method["error"]["code"] == -32601, no_method
    status, _, not_json = tenant.server.request(
        "POST", f"/a2a/{tenant.org}/prod/bot/", raw="{nope",
        headers={"authorization": f"Bearer {key}", "a2a-version": "1.0", "content-type": "application/json"})
    assert status == 200 and not_json["error"]["code"] == -32700, not_json
    assert len(llm.requests) == 0
    # A push config to a private address is refused on a server that does not allow one, and
    # a config for no task is refused as the SDK expects.
    llm.push(openai_text("done"))
    task = client(tenant, key, "JSONRPC", "send", text="hi")["result"]["task"]
    private = client(tenant, key, "JSONRPC", "push-create", task=task["id"],
                     push_url="http://127.0.0.1:9/hook")["error"]
    assert private["reason"] == "INVALID_PARAMS" and "url" in private["message"], private
    inline = client(tenant, key, "HTTP+JSON", "send", text="hi", push_url="http://10.1.2.3/hook")["error"]
    assert "configuration.taskPushNotificationConfig.url" in inline["message"], inline
    unknown = client(tenant, key, "JSONRPC", "push-create", task="run_0000000000000000",
                     push_url="https://hooks.example.com/a2a")["error"]
    assert unknown["name"] == "TaskNotFoundError", unknown
    assert len(llm.requests) == 1


def test_the_card_needs_a_credential_of_its_environment_and_is_cached_by_etag(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    path = f"/a2a/{tenant.org}/prod/bot/.well-known/agent-card.json"
    status, headers, _ = tenant.server.request("GET", path)
    assert status == 401 and headers["www-authenticate"].startswith("Bearer"), headers
    status, headers, card = tenant.server.request("GET", path, headers={"authorization": f"Bearer {key}"})
    assert status == 200 and card["name"] == "bot", card
    assert headers["cache-control"].startswith("private"), headers
    status, _, _ = tenant.server.request("GET", path, headers={"authorization": f"Bearer {key}",
                                                              "if-none-match": headers["etag"]})
    assert status == 304
    # Another environment's or agent's interface is not there for this key.
    tenant.server.admin("POST", f"/orgs/{tenant.org}/environments", {"name": "staging"})
    status, _, _ = tenant.server.request("GET", f"/a2a/{tenant.org}/staging/bot/.well-known/agent-card.json",
                                         headers={"authorization": f"Bearer {key}"})
    assert status == 404
    status, _, _ = tenant.server.request("GET", f"/a2a/{tenant.org}/prod/nobody/.well-known/agent-card.json",
                                         headers={"authorization": f"Bearer {key}"})
    assert status == 404


def test_a_late_block_replaces_the_streamed_text_with_the_placeholder_and_fails_the_task(start_server, llm):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("bot", safety={"detect": ["credit_card"], "placeholder": "Withheld."})
    key = new_key(tenant)
    prose = "Here is everything we have on file for your account, as you asked a moment ago. " * 3
    llm.push(dict(openai_text(prose + "The card is 4111 1111 1111 1111."), piece=5))
    events = client(tenant, key, "JSONRPC", "stream", text="everything")["result"]
    shown = json.dumps(without_ids(events))  # random hex ids may hold any four digits
    assert "4111" not in shown and "1111 1111" not in shown
    assert any("artifactUpdate" in e and e["artifactUpdate"].get("append") for e in events), events
    assert streamed_text(events) == "Withheld."
    end = events[-1]["statusUpdate"]["status"]
    assert end["state"] == "TASK_STATE_FAILED" and "blocked" in end["message"]["parts"][0]["text"], end


@pytest.mark.parametrize("transport", BINDINGS)
def test_a_task_that_needs_an_approval_is_input_required_and_answered_with_a_data_part(
        start_server, llm, transport):
    tools = FakeToolServer()
    try:
        server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
        tenant = Tenant(server)
        tenant.agent("bot", tools=[{"type": "http", "name": "refund", "description": "Refunds",
                                    "parameters": {"type": "object"}, "method": "POST",
                                    "url": f"http://127.0.0.1:{tools.port}/refund", "approval": "always"}])
        key = new_key(tenant, permissions=("chat", "approve"))
        llm.push(openai_tools([("refund", {"order": "A-1"})]))
        task = client(tenant, key, transport, "send", text="refund A-1")["result"]["task"]
        status = task["status"]
        assert status["state"] == "TASK_STATE_INPUT_REQUIRED", task
        needs = status["message"]["parts"][1]["data"]
        assert needs["run_id"] == task["id"]
        assert needs["pending_actions"] == [{"call_id": "call_0", "kind": "approval", "tool": "refund",
                                             "arguments": {"order": "A-1"}}], needs
        assert client(tenant, key, transport, "get", task=task["id"])["result"]["status"]["state"] == \
            "TASK_STATE_INPUT_REQUIRED"
        assert tools.calls == []  # nothing ran before its approval

        # Text never approves a call; a key without `approve` may not decide; a wrong context is refused.
        text = client(tenant, key, transport, "send", text="yes, go ahead", task=task["id"])["error"]
        assert text["reason"] == "INVALID_PARAMS" and "message.parts" in text["message"], text
        chat_only = new_key(tenant, permissions=("chat",))
        approve = {"decisions": [{"call_id": "call_0", "approve": True}]}
        denied = client(tenant, chat_only, transport, "send", data=approve, task=task["id"])["error"]
        # The protocol has no error of its own for it: the SDK's generic class, our message.
        assert "no 'approve' grant" in denied["message"], denied
        bad = client(tenant, key, transport, "send", data={"decisions": [{"call_id": "call_0"}]},
                     task=task["id"])["error"]
        assert bad["reason"] == "INVALID_PARAMS" and "message.parts[0].data.decisions[0]" in bad["message"], bad
        assert tools.calls == []

        llm.push(openai_text("Refunded A-1."))
        done = client(tenant, key, transport, "send", data=approve, task=task["id"],
                      context=task["contextId"])["result"]["task"]
        assert done["id"] == task["id"] and done["status"]["state"] == "TASK_STATE_COMPLETED", done
        assert reply_text(done) == "Refunded A-1."
        assert len(tools.calls) == 1
        ended = client(tenant, key, transport, "send", data=approve, task=task["id"])["error"]
        assert ended["name"] == "UnsupportedOperationError", ended
    finally:
        tools.close()


def test_a_question_is_answered_with_text_and_the_answer_streams(start_server, llm):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("bot", ask_user=True)
    key = new_key(tenant)
    llm.push(openai_tools([("ask_user", {"question": "Which order?"})], text="I need the order."))
    task = client(tenant, key, "JSONRPC", "send", text="refund my order")["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", task
    [need] = task["status"]["message"]["parts"][1]["data"]["pending_actions"]
    assert need["kind"] == "question" and need["question"] == "Which order?", need
    llm.push(dict(openai_text("Refunding order A-7 now, it takes a day or two."), piece=5))
    events = client(tenant, key, "JSONRPC", "stream", text="A-7", task=task["id"])["result"]
    assert events[0]["task"]["id"] == task["id"], events
    assert streamed_text(events) == "Refunding order A-7 now, it takes a day or two."
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED", events
    results = [m["content"] for m in llm.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert results == ["A-7"], results


def test_the_card_is_signed_with_the_key_the_jwks_publishes_and_resigned_after_a_rotation(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    signed = client(tenant, key, "JSONRPC", "verify")["result"]
    header = signed["header"]
    base = f"http://{tenant.server.host}:{tenant.server.port}"
    assert header["alg"] == "ES256" and header["typ"] == "JOSE" and header["jku"] == base + "/oauth/jwks", header
    assert signed["tampered"] == "refused"
    assert '"name":"bot"' in signed["canonical"]
    status, _, rotated = tenant.server.admin("POST", "/oauth/signing-keys/rotate")
    assert status in (200, 201), rotated
    again = client(tenant, key, "JSONRPC", "verify")["result"]
    assert again["header"]["kid"] != header["kid"] and again["tampered"] == "refused", again


def test_an_oauth_client_calls_with_an_a2a_token_and_an_mcp_one_is_refused(start_server, llm):
    from test_mcp_oauth import access_token, mcp, register
    tenant = start(start_server, llm)
    client_pair = register(tenant)
    base = f"http://{tenant.server.host}:{tenant.server.port}"
    card = client(tenant, new_key(tenant), "JSONRPC", "card")["result"]
    flow = card["securitySchemes"]["agentgateOAuth"]["oauth2SecurityScheme"]["flows"]["clientCredentials"]
    assert flow["tokenUrl"] == base + "/oauth/token" and "a2a" in flow["scopes"], card

    a2a_token = access_token(tenant.server, client_pair, resource=base + "/a2a")
    assert a2a_token["scope"] == "a2a", a2a_token
    llm.push(openai_text("Over OAuth."))
    task = client(tenant, a2a_token["access_token"], "HTTP+JSON", "send", text="hi")["result"]["task"]
    assert reply_text(task) == "Over OAuth."
    # A token for /mcp only is not one for /a2a (nor the other way round).
    mcp_token = access_token(tenant.server, client_pair, scope="mcp")["access_token"]
    status, headers, _ = rpc(tenant, mcp_token, "GetTask", {"id": task["id"]})
    assert status == 401 and 'scope="a2a"' in headers["www-authenticate"], headers
    assert "invalid_token" in headers["www-authenticate"]
    status, _, _ = mcp(tenant.server, a2a_token["access_token"])
    assert status == 401
    # Asking for nothing grants both, each at its own resource.
    both = access_token(tenant.server, client_pair)
    assert both["scope"] == "mcp a2a", both
    _, _, read = rpc(tenant, both["access_token"], "GetTask", {"id": task["id"]})
    assert read["result"]["status"]["state"] == "TASK_STATE_COMPLETED", read
    status, _, listed = mcp(tenant.server, both["access_token"])
    assert status == 200, listed


@pytest.mark.postgres
def test_a_task_started_on_one_server_is_followed_read_and_canceled_on_another(start_server, llm):
    from test_openai_api import two_servers
    first, second, key = two_servers(start_server, llm)
    # A streamed task runs on the first server; the second subscribes to it and reads it back.
    llm.push(dict(openai_text("From the first server, slowly, piece by piece."), piece=4, event_delay=0.05))
    task = client(first, key, "JSONRPC", "send", text="hi", immediately="true")["result"]["task"]
    events = client(second, key, "HTTP+JSON", "subscribe", task=task["id"], url=interface(second))["result"]
    assert events[0]["task"]["id"] == task["id"], events
    assert streamed_text(events) == "From the first server, slowly, piece by piece."
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED", events
    read = client(second, key, "JSONRPC", "get", task=task["id"], url=interface(second))["result"]
    assert reply_text(read) == "From the first server, slowly, piece by piece."
    # A slow one started on the first is canceled through the second.
    llm.push(dict(openai_text("never"), delay=20))
    slow = client(first, key, "HTTP+JSON", "send", text="slow", immediately="true")["result"]["task"]
    wait_for_model_calls(llm, 2)
    canceled = client(second, key, "JSONRPC", "cancel", task=slow["id"], url=interface(second))["result"]
    assert canceled["status"]["state"] == "TASK_STATE_CANCELED", canceled
    again = client(first, key, "JSONRPC", "get", task=slow["id"])["result"]
    assert again["status"]["state"] == "TASK_STATE_CANCELED", again


@pytest.mark.both_stores
def test_an_operator_makes_a_card_anonymous_and_takes_it_back(start_server, llm):
    tenant = start(start_server, llm)
    path = f"/a2a/{tenant.org}/prod/bot/.well-known/agent-card.json"
    setting = f"/orgs/{tenant.org}/environments/prod/agents/bot/a2a"
    status, _, _ = tenant.server.request("GET", path)
    assert status == 401
    assert tenant.server.admin("GET", setting)[2]["discoverable"] is False
    status, _, body = tenant.server.admin("PUT", setting, {"discoverable": True})
    assert status == 200 and body == {"agent_id": "bot", "env": "prod", "discoverable": True}, body
    status, headers, card = tenant.server.request("GET", path)
    assert status == 200 and card["name"] == "bot" and card["signatures"], card
    assert headers["cache-control"].startswith("public"), headers
    # A redeploy keeps it; the agent's other environments and other agents are not opened by it.
    tenant.server.admin("PUT", f"/orgs/{tenant.org}/agents/bot/deployments/prod", {"version": 1})
    assert tenant.server.request("GET", path)[0] == 200
    tenant.agent("other")
    assert tenant.server.request("GET", f"/a2a/{tenant.org}/prod/other/.well-known/agent-card.json")[0] == 401
    # Only the card: every operation still needs a credential.
    status, _, _ = tenant.server.request("POST", f"/a2a/{tenant.org}/prod/bot/", {"jsonrpc": "2.0", "id": 1,
                                         "method": "GetTask", "params": {"id": "run_1"}},
                                         headers={"a2a-version": "1.0"})
    assert status == 401
    status, _, body = tenant.server.admin("PUT", setting, {"discoverable": False})
    assert status == 200 and body["discoverable"] is False
    assert tenant.server.request("GET", path)[0] == 401
    # Bad input and an agent not deployed there.
    status, _, body = tenant.server.admin("PUT", setting, {"discoverable": "yes"})
    assert status == 400 and "discoverable" in body["error"]["message"], body
    status, _, body = tenant.server.admin("PUT", setting, {"discoverable": True, "public": True})
    assert status == 400, body
    tenant.server.admin("POST", f"/orgs/{tenant.org}/environments", {"name": "staging"})
    status, _, body = tenant.server.admin("PUT", f"/orgs/{tenant.org}/environments/staging/agents/bot/a2a",
                                          {"discoverable": True})
    assert status == 404 and "not deployed" in body["error"]["message"], body


@pytest.mark.both_stores
@pytest.mark.parametrize("transport", BINDINGS)
def test_tasks_are_listed_latest_first_in_pages_filtered_by_context_and_state(start_server, llm, transport):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    tenant.agent("other")
    done = []
    for i in range(3):
        llm.push(openai_text(f"reply {i}"))
        done.append(client(tenant, key, transport, "send", text=f"m{i}")["result"]["task"])
    llm.push(openai_text("in the first context again"))
    again = client(tenant, key, transport, "send", text="more", context=done[0]["contextId"])["result"]["task"]
    llm.push(dict(openai_text("never"), delay=20))
    slow = client(tenant, key, transport, "send", text="slow", immediately="true")["result"]["task"]
    wait_for_model_calls(llm, 5)
    client(tenant, key, transport, "cancel", task=slow["id"])

    pages = client(tenant, key, transport, "list", page_size="2")["result"]
    assert [len(p.get("tasks", [])) for p in pages] == [2, 2, 1], pages
    assert all(p["totalSize"] == 5 and p["pageSize"] == 2 for p in pages), pages
    assert pages[-1].get("nextPageToken", "") == ""
    ids = [t["id"] for p in pages for t in p["tasks"]]
    assert ids == [slow["id"], again["id"], done[2]["id"], done[1]["id"], done[0]["id"]], ids
    assert all("artifacts" not in t for p in pages for t in p["tasks"])
    [context] = client(tenant, key, transport, "list", context=done[0]["contextId"],
                       include_artifacts="true")["result"]
    assert [t["id"] for t in context["tasks"]] == [again["id"], done[0]["id"]], context
    assert reply_text(context["tasks"][0]) == "in the first context again"
    [canceled] = client(tenant, key, transport, "list", status="TASK_STATE_CANCELED")["result"]
    assert [t["id"] for t in canceled["tasks"]] == [slow["id"]] and canceled["totalSize"] == 1, canceled
    [completed] = client(tenant, key, transport, "list", status="TASK_STATE_COMPLETED")["result"]
    assert completed["totalSize"] == 4, completed
    [none] = client(tenant, key, transport, "list", after="2999-01-01T00:00:00Z")["result"]
    assert none.get("tasks", []) == [] and none.get("totalSize", 0) == 0, none
    # Another agent's interface lists its own; a caller without chat on the agent sees none.
    [other] = client(tenant, new_key(tenant, agents=("other",)), transport, "list",
                     url=interface(tenant, agent="other"))["result"]
    assert other.get("tasks", []) == [], other
    # (Its card is not shown to it, so the SDK finds no agent: raw JSON-RPC.)
    _, _, blind = rpc(tenant, new_key(tenant, permissions=()), "ListTasks", {})
    assert blind["result"]["tasks"] == [] and blind["result"]["totalSize"] == 0, blind
    _, _, bad = rpc(tenant, key, "ListTasks", {"pageSize": 1000})
    assert bad["error"]["code"] == -32602 and "pageSize" in bad["error"]["message"], bad
    _, _, bad = rpc(tenant, key, "ListTasks", {"pageToken": "garbage"})
    assert bad["error"]["code"] == -32602 and "pageToken" in bad["error"]["message"], bad


def test_a_0_3_client_sends_streams_reads_subscribes_and_cancels_in_0_3s_shapes(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)

    def old(call, **args):
        return client(tenant, key, "JSONRPC", call, legacy="true", **args)

    llm.push(openai_text("Hello from 1.0, read by 0.3."))
    task = old("send", text="hi")["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED" and reply_text(task) == "Hello from 1.0, read by 0.3."
    assert old("get", task=task["id"])["result"]["status"]["state"] == "TASK_STATE_COMPLETED"
    llm.push(dict(openai_text("Streamed to an old client, piece by piece."), piece=5))
    events = old("stream", text="stream it", context=task["contextId"])["result"]
    assert "task" in events[0] and streamed_text(events) == "Streamed to an old client, piece by piece.", events
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    llm.push(dict(openai_text("never"), delay=20))
    slow = old("send", text="slow", immediately="true")["result"]["task"]
    wait_for_model_calls(llm, 3)
    assert old("cancel", task=slow["id"])["result"]["status"]["state"] == "TASK_STATE_CANCELED"
    missing = old("get", task="run_0000000000000000")["error"]
    assert missing["name"] == "TaskNotFoundError", missing

    # On the wire: 0.3's names and shapes, with no A2A-Version at all.
    status, _, raw = rpc(tenant, key, "message/send", {"message": {
        "kind": "message", "messageId": "old-1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]},
        "configuration": {"blocking": True}}, version=None)
    llm_reply = raw["result"]
    assert status == 200 and llm_reply["kind"] == "task", raw
    assert llm_reply["status"]["state"] in ("completed", "failed"), raw
    _, _, got = rpc(tenant, key, "tasks/get", {"id": task["id"]}, version=None)
    assert got["result"]["kind"] == "task" and got["result"]["status"]["state"] == "completed", got
    assert got["result"]["artifacts"][0]["parts"][0] == {"kind": "text", "text": "Hello from 1.0, read by 0.3."}
    _, _, file_part = rpc(tenant, key, "message/send", {"message": {
        "kind": "message", "messageId": "old-2", "role": "user",
        "parts": [{"kind": "file", "file": {"uri": "https://example.com/a.pdf"}}]}}, version=None)
    assert file_part["error"]["code"] == -32005, file_part
    _, _, bad_kind = rpc(tenant, key, "message/send", {"message": {
        "messageId": "old-3", "role": "user", "parts": [{"kind": "video"}]}}, version=None)
    assert bad_kind["error"]["code"] == -32602 and "message.parts[0].kind" in bad_kind["error"]["message"]
    _, _, mixed = rpc(tenant, key, "tasks/get", {"id": task["id"]}, version="1.0")
    assert mixed["error"]["code"] == -32009, mixed


def test_an_instance_is_its_own_interface_and_a_data_part_reaches_the_model_as_json(start_server, llm):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("stores", per_instance=True)
    status, _, _ = server.admin("POST", f"/orgs/{tenant.org}/agents/stores/instances",
                                {"instance_id": "berlin", "instructions": "Berlin closes at 6."})
    assert status == 201
    key = new_key(tenant, agents=("stores",))
    berlin = interface(tenant, agent="stores:berlin")
    card = client(tenant, key, "JSONRPC", "card", url=berlin)["result"]
    assert card["supportedInterfaces"][0]["url"] == berlin, card
    llm.push(openai_text("Until six."))
    task = client(tenant, key, "HTTP+JSON", "send", text="When do you close?", data={"store": "berlin"},
                  url=berlin)["result"]["task"]
    assert reply_text(task) == "Until six."
    sent = llm.requests[-1]["body"]["messages"]
    assert "Berlin closes at 6." in sent[0]["content"]
    assert sent[-1]["content"] == 'When do you close?\n\n{"store":"berlin"}'
    # The same messageId to another instance is another task; an unknown instance is refused.
    status, _, _ = server.admin("POST", f"/orgs/{tenant.org}/agents/stores/instances", {"instance_id": "paris"})
    llm.push(openai_text("Until seven."))
    paris = client(tenant, key, "JSONRPC", "send", text="hi", message_id="same",
                   url=interface(tenant, agent="stores:paris"))["result"]["task"]
    llm.push(openai_text("Until six, again."))
    again = client(tenant, key, "JSONRPC", "send", text="hi", message_id="same", url=berlin)["result"]["task"]
    assert paris["id"] != again["id"] and reply_text(again) == "Until six, again."
    status, _, body = rpc(tenant, key, "SendMessage", {"message": {
        "messageId": "x", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}, agent="stores:madrid")
    assert body["error"]["code"] == -32600 and "madrid" in body["error"]["message"], body
    _, _, extended = rpc(tenant, key, "GetExtendedAgentCard", {}, agent="stores:berlin")
    assert extended["error"]["code"] == -32007, extended


def test_a_busy_context_makes_a_blocking_send_wait_and_refuses_one_returned_at_once(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("first"))
    first = client(tenant, key, "JSONRPC", "send", text="one")["result"]["task"]
    llm.push(dict(openai_text("slow"), delay=1.5))
    slow = client(tenant, key, "JSONRPC", "send", text="two", context=first["contextId"],
                  immediately="true")["result"]["task"]
    wait_for_model_calls(llm, 2)
    busy = client(tenant, key, "JSONRPC", "send", text="three", context=first["contextId"],
                  immediately="true")["error"]
    assert busy["name"] == "UnsupportedOperationError", busy
    llm.push(openai_text("after the slow one"))
    waited = client(tenant, key, "JSONRPC", "send", text="four", context=first["contextId"])["result"]["task"]
    assert reply_text(waited) == "after the slow one"
    assert client(tenant, key, "JSONRPC", "get", task=slow["id"])["result"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_a_spent_agent_rejects_the_task_and_keeps_nothing(start_server, llm):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("bot", monthly_spend_limit_usd=0.0)
    key = new_key(tenant)
    task = client(tenant, key, "JSONRPC", "send", text="hi")["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_REJECTED", task
    assert "spend_limit_reached" in task["status"]["message"]["parts"][0]["text"]
    assert client(tenant, key, "JSONRPC", "get", task=task["id"])["error"]["name"] == "TaskNotFoundError"
    assert len(llm.requests) == 0


# --- Push notifications ----------------------------------------------------------------------

PUSH_ENV = {"FAKE_LLM_KEY": API_KEY, "AGENTGATE_WEBHOOKS_ALLOW_PRIVATE": "true",
            "AGENTGATE_WEBHOOKS_FIRST_RETRY_MILLISECONDS": "200"}


class PushReceiver(counterparts.LineReader):
    """a2a_push_receiver.mjs on a free port: the SDK reads every push; `seen` fills as they come."""

    def __init__(self, answers="200"):
        port = counterparts.free_port()
        self.url = f"http://127.0.0.1:{port}/a2a-push"
        super().__init__("a2a_push_receiver.mjs", ["--port", str(port), "--answers", answers])


@pytest.mark.both_stores
@pytest.mark.parametrize("transport", BINDINGS)
def test_a_tasks_push_configs_are_kept_shown_without_credentials_and_pushed_its_end(
        start_server, llm, transport):
    server = start_server(config_for(llm), env=PUSH_ENV)
    tenant = Tenant(server)
    tenant.agent("bot")
    key = new_key(tenant)
    receiver = PushReceiver(answers="500,200")  # the first attempt fails: it is tried again
    try:
        llm.push(dict(openai_text("Pushed when done."), delay=1.0))
        task = client(tenant, key, transport, "send", text="work on it", immediately="true")["result"]["task"]
        created = client(tenant, key, transport, "push-create", task=task["id"], push_url=receiver.url,
                         push_id="ops", push_token="tok-1", push_scheme="Bearer",
                         push_credentials="s3cret")["result"]
        assert created == {"taskId": task["id"], "id": "ops", "url": receiver.url,
                           "authentication": {"scheme": "Bearer"}}, created
        assert "s3cret" not in json.dumps(created) and "tok-1" not in json.dumps(created)
        got = client(tenant, key, transport, "push-get", task=task["id"], push_id="ops")["result"]
        assert got["url"] == receiver.url and "token" not in got, got
        listed = client(tenant, key, transport, "push-list", task=task["id"])["result"]
        assert [c["id"] for c in listed["configs"]] == ["ops"], listed

        first, second = receiver.wait(2)
        assert first["status"] == 500 and second["status"] == 200
        assert first["id"] == second["id"] and second["id"].startswith("msg_"), (first, second)
        assert second["authorization"] == "Bearer s3cret" and second["token"] == "tok-1", second
        assert second["content_type"] == "application/a2a+json", second
        pushed = second["body"]["task"]
        assert pushed["id"] == task["id"] and pushed["status"]["state"] == "TASK_STATE_COMPLETED", pushed
        assert reply_text(pushed) == "Pushed when done."

        assert client(tenant, key, transport, "push-delete", task=task["id"], push_id="ops")["result"] == "deleted"
        assert client(tenant, key, transport, "push-list", task=task["id"])["result"].get("configs", []) == []
        gone = client(tenant, key, transport, "push-get", task=task["id"], push_id="ops")["error"]
        assert gone["name"] == "TaskNotFoundError", gone
        time.sleep(0.5)
        assert len(receiver.seen) == 2  # one end, delivered once
    finally:
        receiver.close()


def test_a_config_sent_with_the_message_is_pushed_the_pause_and_a_task_keeps_at_most_ten(start_server, llm):
    server = start_server(config_for(llm), env=PUSH_ENV)
    tenant = Tenant(server)
    tenant.agent("bot", ask_user=True)
    key = new_key(tenant)
    receiver = PushReceiver()
    try:
        llm.push(openai_tools([("ask_user", {"question": "Which order?"})], text="I need the order."))
        task = client(tenant, key, "JSONRPC", "send", text="refund my order", push_url=receiver.url,
                      push_token="inline-1")["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", task
        [pause] = receiver.wait(1)
        assert pause["token"] == "inline-1" and pause["authorization"] is None, pause
        assert pause["body"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", pause
        # The inline config is the task's default one: its id is the task's.
        default = client(tenant, key, "JSONRPC", "push-get", task=task["id"])["result"]
        assert default["id"] == task["id"] and default["url"] == receiver.url, default
        named = client(tenant, key, "HTTP+JSON", "push-get", task=task["id"], push_id=task["id"])
        assert "result" in named, named
        named = named["result"]
        assert named == default, (named, default)

        # Answered: the end is pushed too.
        llm.push(openai_text("Refunding A-7."))
        done = client(tenant, key, "JSONRPC", "send", text="A-7", task=task["id"])["result"]["task"]
        assert done["status"]["state"] == "TASK_STATE_COMPLETED", done
        _, end = receiver.wait(2)
        assert end["body"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED", end

        # Ten a task at most; one replaced by its id is not one more.
        for i in range(9):
            made = client(tenant, key, "HTTP+JSON", "push-create", task=task["id"], push_id=f"c{i}",
                          push_url=f"https://hooks.example.com/{i}")
            assert "result" in made, made
        again = client(tenant, key, "JSONRPC", "push-create", task=task["id"], push_id="c0",
                       push_url="https://hooks.example.com/replaced")["result"]
        assert again["url"] == "https://hooks.example.com/replaced"
        eleventh = client(tenant, key, "JSONRPC", "push-create", task=task["id"], push_id="c10",
                          push_url="https://hooks.example.com/10")["error"]
        assert eleventh["reason"] == "INVALID_PARAMS" and "10 push configs" in eleventh["message"], eleventh
        assert len(client(tenant, key, "JSONRPC", "push-list", task=task["id"])["result"]["configs"]) == 10
    finally:
        receiver.close()


def test_a_zero_three_client_keeps_push_configs_in_its_shapes_and_is_pushed_the_task(start_server, llm):
    server = start_server(config_for(llm), env=PUSH_ENV)
    tenant = Tenant(server)
    tenant.agent("bot")
    key = new_key(tenant)
    receiver = PushReceiver()
    try:
        llm.push(dict(openai_text("For the old client."), delay=1.0))
        task = client(tenant, key, "JSONRPC", "send", text="hi", immediately="true",
                      legacy="true")["result"]["task"]
        made = client(tenant, key, "JSONRPC", "push-create", task=task["id"], push_url=receiver.url,
                      push_scheme="Bearer", push_credentials="old-secret", legacy="true")["result"]
        assert made["id"] == task["id"] and made["authentication"]["scheme"] == "Bearer", made
        listed = client(tenant, key, "JSONRPC", "push-list", task=task["id"], legacy="true")["result"]
        assert [c["url"] for c in listed["configs"]] == [receiver.url], listed
        [pushed] = receiver.wait(1)
        assert pushed["authorization"] == "Bearer old-secret" and pushed["content_type"] == "application/json"
        body = pushed["body"]
        assert body["kind"] == "task" and body["status"]["state"] == "completed", body
        assert body["id"] == task["id"]
        assert client(tenant, key, "JSONRPC", "push-delete", task=task["id"], push_id=task["id"],
                      legacy="true")["result"] == "deleted"
    finally:
        receiver.close()
