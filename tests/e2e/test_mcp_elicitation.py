"""MCP elicitation (issue 76 §4, docs/mcp.md "Elicitation"). Inbound: a run started by an MCP
client that pauses for an approval or a question asks that client, when it declares form
elicitation, with a 2026-07-28 `input_required` result; the client's retried `tools/call` (its
`inputResponses` and the sealed `requestState`) decides the run, which goes on and answers the call.
Driven by the official v2 SDK client (@modelcontextprotocol/client, its multi-round-trip driver),
and by raw JSON-RPC for the refusals and for a retry taken by another server. Outbound: an MCP
server an agent calls (the v2 SDK's server, its inputRequired()) asks for input: the run pauses with
a question, and the answer goes back upstream."""
import http.client
import json

import pytest

from counterparts import SdkServer
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import FakeToolServer, openai_text, openai_tools
from test_approvals import TOOL, start
from test_mcp_server import run_client, text_of
from test_questions import ORDER
from test_runs import wait_status


@pytest.fixture
def tools():
    server = FakeToolServer()
    yield server
    server.close()


def elicit(tenant, agent, message, responses, progress=False, sdk="v2"):
    call = {"name": agent, "arguments": {"message": message}, "progress": progress}
    out = run_client(tenant, sdk, [call], extra=["--elicit", json.dumps(responses)])
    [result] = out["results"]
    return result, out["elicitations"]


def grant(tenant, agent_id, permissions):
    tenant.server.admin("PUT", f"/orgs/{tenant.org}/grants",
                        {"token_id": tenant.token_id, "agent_id": agent_id, "permissions": permissions})


def tool_results(llm):
    return [m["content"] for m in llm.requests[-1]["body"]["messages"] if m["role"] == "tool"]


# v1 is the 2025-11-25 SDK: asked on the call's SSE stream, its answer POSTed as a JSON-RPC response.
@pytest.mark.parametrize("sdk,progress", [("v2", False), ("v2", True), ("v1", False), ("v1", True)])
def test_a_question_is_asked_of_the_client_and_its_answer_goes_on(start_server, llm, sdk, progress):
    tenant = start(start_server, llm)
    tenant.agent("desk", ask_user=True)
    llm.push(openai_tools([("ask_user", {"question": "Which order?", "answer_schema": ORDER})]))
    llm.push(openai_text("Refunding A-7."))
    # Asked for progress, the first call is a stream whose last message is the input_required.
    result, asked = elicit(tenant, "desk", "refund my order",
                           [{"action": "accept", "content": {"order": "A-7"}}], progress, sdk)
    assert "isError" not in result or result["isError"] is False, result
    assert text_of(result) == "Refunding A-7.", result
    [form] = asked
    assert form["message"] == "Which order?" and form.get("mode", "form") == "form", form
    assert form["requestedSchema"]["properties"]["order"]["type"] == "string", form
    assert form["requestedSchema"]["required"] == ["order"], form
    assert [json.loads(r) for r in tool_results(llm)] == [{"order": "A-7"}]
    assert result["structuredContent"]["terminated_reason"] is None, result


def test_an_answer_outside_its_schema_is_refused_and_the_run_still_waits(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("desk", ask_user=True)
    llm.push(openai_tools([("ask_user", {"question": "Which order?", "answer_schema": ORDER})]))
    result, _ = elicit(tenant, "desk", "refund my order",
                       [{"action": "accept", "content": {"order": "B"}}])
    assert result["isError"] is True, result
    assert text_of(result).startswith("400 invalid_request"), result
    assert "answer_schema" in text_of(result), result
    # The same refusal, then a right answer to the same state: the run was still waiting.
    llm.push(openai_tools([("ask_user", {"question": "Which order?", "answer_schema": ORDER})]))
    asked = modern(tenant, {})["result"]
    [call_id] = asked["inputRequests"]
    state = asked["requestState"]
    wrong = modern(tenant, {"requestState": state, "inputResponses": {
        call_id: {"action": "accept", "content": {"order": "B"}}}})["result"]
    assert wrong["isError"] is True and "answer_schema" in wrong["content"][0]["text"], wrong
    llm.push(openai_text("Refunding A-7."))
    done = modern(tenant, {"requestState": state, "inputResponses": {
        call_id: {"action": "accept", "content": {"order": "A-7"}}}})["result"]
    assert done["content"][0]["text"] == "Refunding A-7.", done


def test_a_declined_question_is_told_to_the_model_and_the_turn_goes_on(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("desk", ask_user=True)
    llm.push(openai_tools([("ask_user", {"question": "Which order?"})]))
    llm.push(openai_text("I cannot refund without an order."))
    result, asked = elicit(tenant, "desk", "refund my order", [{"action": "decline"}])
    assert text_of(result) == "I cannot refund without an order.", result
    assert asked[0]["requestedSchema"]["properties"]["answer"]["type"] == "string", asked
    assert tool_results(llm) == ["The user declined to answer."]


def test_an_approval_is_asked_and_the_tool_runs_once_when_approved(start_server, llm, tools):
    tenant = start(start_server, llm)
    tenant.agent("shop", tools=[{**TOOL, "name": "refund", "approval": "always", "method": "POST",
                                 "url": f"http://127.0.0.1:{tools.port}/refund"}])
    grant(tenant, "shop", ["chat", "approve"])
    llm.push(openai_tools([("refund", {"order": "A-1"})]))
    llm.push(openai_text("Refunded A-1."))
    result, asked = elicit(tenant, "shop", "refund A-1",
                           [{"action": "accept", "content": {"approve": True}}])
    assert text_of(result) == "Refunded A-1.", result
    assert "refund" in asked[0]["message"] and '{"order":"A-1"}' in asked[0]["message"], asked
    assert asked[0]["requestedSchema"]["required"] == ["approve"], asked
    assert [c["path"] for c in tools.calls] == ["/refund"], tools.calls


def test_a_declined_approval_is_a_denial_and_the_turn_goes_on(start_server, llm, tools):
    tenant = start(start_server, llm)
    tenant.agent("shop", tools=[{**TOOL, "name": "refund", "approval": "always", "method": "POST",
                                 "url": f"http://127.0.0.1:{tools.port}/refund"}])
    grant(tenant, "shop", ["chat", "approve"])
    llm.push(openai_tools([("refund", {"order": "A-1"})]))
    llm.push(openai_text("The refund was not approved."))
    result, _ = elicit(tenant, "shop", "refund A-1", [{"action": "decline"}])
    assert text_of(result) == "The refund was not approved.", result
    assert tools.calls == []
    [denied] = tool_results(llm)
    assert denied.startswith("denied") and "declined" in denied, denied


def test_a_client_without_the_capability_is_told_where_to_answer(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("desk", ask_user=True)
    llm.push(openai_tools([("ask_user", {"question": "Which order?"})]))
    [result] = run_client(tenant, "v2", [{"name": "desk", "arguments": {"message": "refund"}}])["results"]
    assert result["isError"] is True, result
    run_id = result["structuredContent"]["run_id"]
    assert f"/api/runs/{run_id}/approvals" in text_of(result), result


def test_a_2025_client_is_told_of_a_pause_with_several_needs_as_text(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("desk", ask_user=True)
    llm.push(openai_tools([("ask_user", {"question": "Which order?"}), ("ask_user", {"question": "Why?"})]))
    result, asked = elicit(tenant, "desk", "refund my order", [], sdk="v1")
    assert asked == [], asked  # one form per request, and their answers would arrive apart
    assert result["isError"] is True, result
    assert "2 answer(s)" in text_of(result) and "/approvals" in text_of(result), result


def modern(tenant, params, capabilities=None, name="desk"):
    """A raw 2026-07-28 tools/call: its headers and its _meta as the revision wants them."""
    h = {"content-type": "application/json", "accept": "application/json, text/event-stream",
         "fl-api-org": tenant.org, "fl-api-env": "prod", "fl-api-token": tenant.token,
         "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name}
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities or {"elicitation": {}}}
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": name, "arguments": {"message": "refund my order"}, "_meta": meta, **params}}
    status, _, out = tenant.server.request("POST", "/mcp", call, h, timeout=30)
    assert status == 200, out
    return out


def test_bad_retries_are_invalid_params_naming_the_field(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("desk", ask_user=True)
    tenant.agent("other")
    llm.push(openai_tools([("ask_user", {"question": "Which order?"})]))
    first = modern(tenant, {})["result"]
    assert first["resultType"] == "input_required", first
    [(call_id, request)] = first["inputRequests"].items()
    assert request["method"] == "elicitation/create", request
    state = first["requestState"]
    answered = {call_id: {"action": "accept", "content": {"answer": "A-7"}}}

    def refused(params, name="desk"):
        out = modern(tenant, params, name=name)
        assert out["error"]["code"] == -32602, out
        return out["error"]["message"]

    assert "params.requestState" in refused({"requestState": "forged", "inputResponses": answered})
    assert "params.requestState" in refused({"requestState": 5, "inputResponses": answered})
    assert "params.requestState" in refused({"requestState": state, "inputResponses": answered}, "other")
    assert "params.inputResponses" in refused({"requestState": state})
    assert f'params.inputResponses["{call_id}"].action' in refused(
        {"requestState": state, "inputResponses": {call_id: {"action": "maybe"}}})
    assert 'params.inputResponses["x"]' in refused(
        {"requestState": state, "inputResponses": {**answered, "x": {"action": "decline"}}})
    # Another token of the org may not echo it either.
    _, _, tok = tenant.server.admin("POST", f"/orgs/{tenant.org}/tokens", {"name": "second"})
    grant_to = {"token_id": tok["id"], "agent_id": "desk", "permissions": ["chat"]}
    tenant.server.admin("PUT", f"/orgs/{tenant.org}/grants", grant_to)
    stranger = Tenant(tenant.server, existing=True)
    stranger.token = tok["token"]
    out = modern(stranger, {"requestState": state, "inputResponses": answered})
    assert "params.requestState" in out["error"]["message"], out
    # The right retry decides the run once; its echo afterwards finds it no longer waiting.
    llm.push(openai_text("Refunding A-7."))
    done = modern(tenant, {"requestState": state, "inputResponses": answered})["result"]
    assert done["resultType"] == "complete" and done["content"][0]["text"] == "Refunding A-7.", done
    again = modern(tenant, {"requestState": state, "inputResponses": answered})["result"]
    assert again["isError"] is True and "409" in again["content"][0]["text"], again


def asking_on_two_servers(start_server, llm):
    """Two servers on one store, and a desk agent whose model asks the user a question."""
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY,
                                                "AGENTGATE_STORE_URL": first.store_url})
    tenant = Tenant(first)
    tenant.agent("desk", ask_user=True)
    llm.push(openai_tools([("ask_user", {"question": "Which order?"})]))
    return first, second, tenant


@pytest.mark.postgres
def test_the_retry_is_taken_by_another_server(start_server, llm):
    first, second, tenant = asking_on_two_servers(start_server, llm)
    asked = modern(tenant, {})["result"]
    first.stop()  # nothing of the pause waits on the server that asked
    [call_id] = asked["inputRequests"]
    llm.push(openai_text("Refunding A-7."))
    done = modern(tenant.via(second), {"requestState": asked["requestState"],
                                       "inputResponses": {call_id: {"action": "accept",
                                                                    "content": {"answer": "A-7"}}}})
    assert done["result"]["content"][0]["text"] == "Refunding A-7.", done
    assert tool_results(llm) == ["A-7"]


# Outbound: an MCP server an agent calls asks for input (its 2026-07-28 input_required): the run
# pauses with a `question` need, and the answer is retried upstream with the server's exact state.

@pytest.fixture
def docs():
    server = SdkServer("modern")
    yield server
    server.close()


def refunding(tenant, docs):
    tenant.agent("shop", tools=[{"type": "mcp", "name": "docs", "url": docs.url}])


def test_a_servers_question_is_the_runs_and_its_answer_goes_back_upstream(start_server, llm, docs):
    tenant = start(start_server, llm)
    refunding(tenant, docs)
    llm.push(openai_tools([("docs__lookup", {"order_id": "A-1"}), ("docs__refund", {"order_id": "A-1"})]))
    status, _, paused = tenant.invoke("shop", {"message": "refund A-1"})
    assert status == 200 and paused["terminated_reason"] == "input_required", paused
    [need] = paused["pending_actions"]
    assert need["kind"] == "question" and need["tool"] == "docs__refund", need
    assert need["question"] == "Refund order A-1?", need
    assert need["answer_schema"]["properties"]["confirm"]["type"] == "boolean", need
    assert need["arguments"] == {"order_id": "A-1"}, need
    # An answer outside the server's form is refused; the run still waits.
    status, _, body = answer(tenant, paused["run_id"], need["call_id"], {"confirm": "yes"})
    assert status == 400 and "answers[0].answer" in body["error"]["message"], body
    status, _, body = answer(tenant, paused["run_id"], need["call_id"], "yes")
    assert status == 400 and "answers[0].answer" in body["error"]["message"], body
    llm.push(openai_text("Refunded A-1."))
    status, _, done = answer(tenant, paused["run_id"], need["call_id"], {"confirm": True})
    assert status == 200 and done["response"] == "Refunded A-1.", done
    # The lookup ran once, before the pause; the refund twice: asked, then answered with the state.
    calls = docs.events("call")
    assert [c["tool"] for c in calls] == ["lookup", "refund", "refund"], calls
    assert calls[2]["state"] == 'refund:A-1:"ticket"', calls
    assert calls[2]["responses"] == {"confirm": {"action": "accept", "content": {"confirm": True}}}, calls
    found, refunded = tool_results(llm)
    assert found.startswith("Order A-1 has shipped.") and refunded == "order A-1 refunded", tool_results(llm)


def test_a_servers_question_reaches_an_mcp_caller_by_elicitation(start_server, llm, docs):
    tenant = start(start_server, llm)
    refunding(tenant, docs)
    llm.push(openai_tools([("docs__refund", {"order_id": "A-2"})]))
    llm.push(openai_text("Not refunded."))
    result, asked = elicit(tenant, "shop", "refund A-2", [{"action": "decline"}])
    assert text_of(result) == "Not refunded.", result
    assert asked[0]["message"] == "Refund order A-2?", asked
    assert asked[0]["requestedSchema"]["properties"]["confirm"]["type"] == "boolean", asked
    # Declined by the caller's user: the server is told so, and its answer reaches the model.
    last = docs.events("call")[-1]
    assert last["responses"] == {"confirm": {"action": "decline"}}, last
    assert tool_results(llm) == ["order A-2 was not refunded"]


def answer(tenant, run_id, call_id, value):
    return tenant.server.request("POST", f"/api/runs/{run_id}/approvals",
                                 {"answers": [{"call_id": call_id, "answer": value}]},
                                 {"content-type": "application/json", "fl-api-org": tenant.org,
                                  "fl-api-env": "prod", "fl-api-token": tenant.token}, timeout=30)


def legacy_session(server, tenant):
    """A raw 2025-11-25 session that declared form elicitation: its headers."""
    h = {"content-type": "application/json", "accept": "application/json, text/event-stream",
         "fl-api-org": tenant.org, "fl-api-env": "prod", "fl-api-token": tenant.token}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                       "clientInfo": {"name": "raw", "version": "1"}}}
    connection = http.client.HTTPConnection(server.host, server.port, timeout=30)
    connection.request("POST", "/mcp", json.dumps(init), h)
    response = connection.getresponse()
    response.read()
    return {**h, "mcp-session-id": response.getheader("mcp-session-id"), "mcp-protocol-version": "2025-11-25"}


def sse_messages(response):
    """The JSON-RPC messages of an SSE response, as they come."""
    while True:
        line = response.readline()
        if not line:
            return
        if line.startswith(b"data:"):
            yield json.loads(line[5:])


def post(server, h, message):
    connection = http.client.HTTPConnection(server.host, server.port, timeout=30)
    connection.request("POST", "/mcp", json.dumps(message), h)
    response = connection.getresponse()
    return response.status, response.read()


@pytest.mark.postgres
def test_a_2025_clients_answer_is_taken_by_another_server_and_the_asking_stream_ends_the_call(start_server, llm):
    first, second, tenant = asking_on_two_servers(start_server, llm)
    llm.push(openai_text("Refunding A-7."))
    h = legacy_session(first, tenant)
    assert h["mcp-session-id"].endswith(".forms"), h
    call = http.client.HTTPConnection(first.host, first.port, timeout=60)
    call.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                              "params": {"name": "desk", "arguments": {"message": "refund"}}}), h)
    stream = call.getresponse()
    assert stream.status == 200 and stream.getheader("content-type") == "text/event-stream"
    messages = sse_messages(stream)
    asked = next(messages)
    assert asked["method"] == "elicitation/create" and asked["params"]["message"] == "Which order?", asked
    # A response that answers nothing of ours, or another caller's, is refused.
    status, body = post(second, h, {"jsonrpc": "2.0", "id": "elsewhere", "result": {"action": "decline"}})
    assert status == 400, body
    status, body = post(second, h, {"jsonrpc": "2.0", "id": asked["id"],
                                    "result": {"action": "accept", "content": {"answer": "A-7"}}})
    assert status == 202, body
    done = next(messages)
    assert done["id"] == 2 and done["result"]["content"][0]["text"] == "Refunding A-7.", done
    assert tool_results(llm) == ["A-7"]
    # Answered once: the same response again finds the run no longer waiting.
    status, body = post(second, h, {"jsonrpc": "2.0", "id": asked["id"],
                                    "result": {"action": "accept", "content": {"answer": "A-8"}}})
    assert status == 409, body


def test_a_servers_question_in_a_background_run_is_answered_in_the_background(start_server, llm, docs):
    tenant = start(start_server, llm)
    refunding(tenant, docs)
    llm.push(openai_tools([("docs__refund", {"order_id": "A-3"})]))
    status, _, queued = tenant.invoke("shop", {"message": "refund A-3", "background": True})
    assert status == 202, queued
    paused = wait_status(tenant, queued["run_id"], {"requires_action"})
    assert paused["status"] == "requires_action", paused
    [need] = paused["pending_actions"]
    assert need["kind"] == "question" and need["question"] == "Refund order A-3?", need
    llm.push(openai_text("Refunded A-3."))
    status, _, going = tenant.server.request(
        "POST", f"/api/runs/{queued['run_id']}/approvals",
        {"answers": [{"call_id": need["call_id"], "answer": {"confirm": True}}], "background": True},
        {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
         "fl-api-token": tenant.token}, timeout=30)
    assert status == 202, going
    done = wait_status(tenant, queued["run_id"], {"completed", "failed"})
    assert done["status"] == "completed" and done["result"]["response"] == "Refunded A-3.", done
    last = docs.events("call")[-1]
    assert last["state"] == 'refund:A-3:"ticket"', last
    assert last["responses"] == {"confirm": {"action": "accept", "content": {"confirm": True}}}, last
