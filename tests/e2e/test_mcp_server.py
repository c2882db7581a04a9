"""agentgate's agents as an MCP server (POST /mcp, SPEC §10), called by the official TypeScript
SDK's clients: v1 (@modelcontextprotocol/sdk, 2025-11-25) and v2 (@modelcontextprotocol/client,
2026-07-28), pinned in tests/counterparts."""
import json
import subprocess
import threading
import time

import pytest

from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import FakeToolServer, openai_text, openai_tools
from counterparts import counterparts_dir


@pytest.fixture
def daemon(llm, start_server):
    llm.reset()
    return Tenant(start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY}))


def run_client(tenant, sdk, calls, env="prod", token=None, extra=()):
    out = subprocess.run(
        ["node", "sdk_client.mjs", "--url", f"http://{tenant.server.host}:{tenant.server.port}/mcp",
         "--org", tenant.org, "--env", env, "--token", token or tenant.token, "--sdk", sdk,
         "--calls", json.dumps(calls), *extra],
        cwd=counterparts_dir(), capture_output=True, text=True, timeout=90)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def text_of(result):
    return "".join(c["text"] for c in result["content"] if c["type"] == "text")


@pytest.mark.parametrize("sdk,version", [("v1", "2025-11-25"), ("v2", "2026-07-28")])
def test_an_sdk_client_lists_the_agents_and_calls_them(daemon, llm, sdk, version):
    daemon.agent("helper", description="Answers questions about orders", max_iterations=1,
                 actions=[{"name": "step", "description": "A step"}])
    daemon.agent("ungranted")
    daemon.server.admin("PUT", "/orgs/acme/grants", {"token_id": daemon.token_id, "agent_id": "ungranted",
                                                     "permissions": []})
    llm.push(openai_text("Hello from the agent", input_tokens=100, output_tokens=20),
             openai_text("Nice to meet you"),
             openai_text("You said your name is Ada"),
             openai_tools([("step", {"n": 1})], text="Half an answer"))
    out = run_client(daemon, sdk, [
        {"name": "helper", "arguments": {"message": "hi"}},
        {"name": "helper", "arguments": {"message": "I am Ada", "stateful": True}},
        {"name": "helper", "arguments": {"message": "who am I?", "stateful": True,
                                         "conversation_id": "$conversation_id"}},
        {"name": "helper", "arguments": {"message": "do the steps"}},
    ])
    assert out["version"] == version
    assert [t["name"] for t in out["tools"]] == ["helper"]  # no grant, not listed
    tool = out["tools"][0]
    assert tool["description"] == "Answers questions about orders"
    assert tool["inputSchema"]["required"] == ["message"]
    assert {"stateful", "conversation_id", "host_context", "additional_instructions",
            "group_key"} <= set(tool["inputSchema"]["properties"])

    stateless, first, second, partial = out["results"]
    assert text_of(stateless) == "Hello from the agent" and not stateless.get("isError")
    assert stateless["structuredContent"] == {
        "conversation_id": None, "terminated_reason": None, "blocked": False, "output": None,
        "usage": {"input_tokens": 100, "output_tokens": 20, "cost_usd": pytest.approx(0.14), "model_calls": 1,
                  "models": [{"provider": "fake-openai", "model": "gpt-test", "calls": 1, "failed_calls": 0,
                              "input_tokens": 100, "cached_input_tokens": 0, "cache_write_tokens": 0,
                              "output_tokens": 20, "cost_usd": pytest.approx(0.14)}]}}
    conversation = first["structuredContent"]["conversation_id"]
    assert conversation and second["structuredContent"]["conversation_id"] == conversation
    sent = llm.requests[2]["body"]["messages"]
    assert [m["content"] for m in sent if m["role"] != "system"] == ["I am Ada", "Nice to meet you", "who am I?"]
    # A partial answer is flagged, never mistaken for a complete one.
    assert partial["isError"] is True
    assert text_of(partial).startswith("stopped early (max_iterations)")
    assert partial["structuredContent"]["terminated_reason"] == "max_iterations"


@pytest.mark.parametrize("sdk", ["v1", "v2"])
def test_a_call_asking_for_progress_hears_each_step_before_its_result(daemon, llm, sdk):
    tools = FakeToolServer()
    daemon.agent("helper", tools=[{"type": "http", "name": "lookup", "description": "Look up",
                                   "parameters": {"type": "object"},
                                   "url": f"http://127.0.0.1:{tools.port}/lookup", "method": "POST"}])
    llm.push(openai_tools([("lookup", {"q": "order 7"})]), openai_text("Order 7 shipped."),
             openai_text("Again."))
    try:
        out = run_client(daemon, sdk, [{"name": "helper", "arguments": {"message": "where is 7?"},
                                        "progress": True},
                                       {"name": "helper", "arguments": {"message": "again"}}])
    finally:
        tools.close()
    with_progress, without = out["results"]
    assert text_of(with_progress) == "Order 7 shipped." and not with_progress.get("isError")
    messages = [p["message"] for p in with_progress["progress"]]
    assert messages == ["model call 1 started", "model call 1 finished", "tool lookup started",
                        "tool lookup finished", "model call 2 started", "model call 2 finished",
                        "reply written"], with_progress["progress"]
    assert [p["progress"] for p in with_progress["progress"]] == list(range(1, 8))
    assert "Order 7" not in json.dumps(with_progress["progress"])  # steps, never the reply
    # Without a progress token the answer is the single JSON body, as before.
    assert text_of(without) == "Again." and "progress" not in without


@pytest.mark.parametrize("sdk", ["v1", "v2"])
def test_refusals_are_error_results_that_name_the_status(daemon, llm, sdk):
    daemon.agent("capped", monthly_spend_limit_usd=0.0)
    daemon.agent("solo", per_instance=True)
    daemon.agent("ungranted")
    daemon.server.admin("PUT", "/orgs/acme/grants", {"token_id": daemon.token_id, "agent_id": "ungranted",
                                                     "permissions": []})
    out = run_client(daemon, sdk, [
        {"name": "nobody", "arguments": {"message": "hi"}},
        {"name": "capped", "arguments": {"message": "hi"}},
        {"name": "solo", "arguments": {"message": "hi"}},
        {"name": "capped", "arguments": {"message": ""}},
        {"name": "nobody"},
        {"name": "ungranted", "arguments": {"message": "hi"}},
    ])
    missing, capped, no_instance, empty, bare, ungranted = out["results"]
    # A tool not in tools/list is JSON-RPC's invalid params, before its arguments are read
    # (issue 74 §7): the SDK raises it; a listed tool's refusals stay isError results.
    for unknown, name in ((missing, "nobody"), (bare, "nobody"), (ungranted, "ungranted")):
        assert unknown.get("code") == -32602 and f"unknown tool: {name}" in unknown["thrown"], unknown
    assert "'message'" not in bare["thrown"]
    assert capped["isError"] and text_of(capped).startswith("402 spend_limit_reached:")
    assert no_instance["isError"] and text_of(no_instance).startswith("400 invalid_request:")
    assert empty["isError"] and "'message'" in text_of(empty)
    solo = next(t for t in out["tools"] if t["name"] == "solo")
    assert "instance_id" in solo["inputSchema"]["required"]


@pytest.mark.parametrize("sdk", ["v1", "v2"])
def test_a_client_that_cancels_its_call_cancels_the_turn(daemon, llm, sdk):
    """v1 sends notifications/cancelled; v2 closes the request's connection. Either way the turn's
    model call is canceled (the provider sees agentgate hang up) and nothing of the turn is kept."""
    daemon.agent("slow")
    llm.push({**openai_text("too late"), "delay": 5})
    counterparts_dir()  # installed before the clock starts (another test worker may be installing)
    started = time.monotonic()
    out = run_client(daemon, sdk, [{"name": "slow", "arguments": {"message": "take your time"},
                                    "abort_after_ms": 700}])
    assert "thrown" in out["results"][0] and out["results"][0]["aborted"], out["results"]
    deadline = time.monotonic() + 4
    while llm.disconnects == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert llm.disconnects == 1
    assert time.monotonic() - started < 5
    usage = daemon.settled_usage()
    assert usage["total_spent_usd"] == 0 and usage["total_reserved_usd"] == 0, usage


def test_the_endpoint_authenticates_before_reading_json_rpc(daemon):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    status, _, resp = daemon.server.request("POST", "/mcp", body, {"content-type": "application/json"})
    assert status == 401 and error_of(resp)["code"] == "unauthenticated"
    headers = {"content-type": "application/json", "fl-api-org": "acme", "fl-api-token": daemon.token}
    status, _, resp = daemon.server.request("POST", "/mcp", raw="{not json", headers=headers)
    assert status == 400 and error_of(resp)["code"] == "missing_header"
    headers["fl-api-env"] = "prod"
    status, _, resp = daemon.server.request("POST", "/mcp", raw="{not json", headers=headers)
    assert status == 400 and resp["error"]["code"] == -32700
    # A modern request whose headers disagree with its body is refused (HeaderMismatch).
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    status, _, resp = daemon.server.request(
        "POST", "/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}},
        dict(headers, **{"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call"}))
    assert status == 400 and resp["error"]["code"] == -32020
    status, _, resp = daemon.server.request(
        "POST", "/mcp", {"jsonrpc": "2.0", "id": 3, "method": "tools/list",
                         "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}},
        dict(headers, **{"mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list"}))
    assert status == 400 and resp["error"]["code"] == -32022
    assert "2026-07-28" in resp["error"]["data"]["supported"]
    status, _, resp = daemon.server.request(
        "POST", "/mcp", {"jsonrpc": "2.0", "id": 4, "method": "prompts/list", "params": {"_meta": meta}},
        dict(headers, **{"mcp-protocol-version": "2026-07-28", "mcp-method": "prompts/list"}))
    assert status == 404 and resp["error"]["code"] == -32601
    assert daemon.server.request("GET", "/mcp", headers=headers)[0] == 405


def test_a_present_origin_must_be_ours_loopback_or_listed(llm, start_server):
    """Issue 72 §5 (the transport's DNS-rebinding rule): an Origin that is not allowed is 403 for
    every credential, before the credential is read; loopback and listed origins pass."""
    server = start_server(config_for(llm, 'allowed_origins = ["https://console.example.com"]'),
                          env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    fl_api = {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
              "fl-api-token": tenant.token}
    _, _, tok = server.admin("POST", f"/orgs/{tenant.org}/tokens", {"name": "key"})
    api_key = {"content-type": "application/json", "authorization": f"Bearer {tok['api_keys']['prod']}"}
    for credentials in (fl_api, api_key, {"content-type": "application/json"}):
        status, _, resp = server.request("POST", "/mcp", body, dict(credentials, origin="http://evil.example.com"))
        assert status == 403 and resp["error"]["code"] == -32600 and resp["id"] is None, resp
        assert "evil.example.com" in resp["error"]["message"]
    for origin in ("http://localhost:6274", "http://127.0.0.1:3000", "https://console.example.com", None):
        headers = dict(fl_api, origin=origin) if origin else fl_api
        status, _, resp = server.request("POST", "/mcp", body, headers)
        assert status == 200 and "tools" in resp["result"], (origin, resp)
    # The Bearer scheme's name is not case-sensitive.
    status, _, resp = server.request("POST", "/mcp", body, {"content-type": "application/json",
                                                           "authorization": f"bearer {tok['api_keys']['prod']}"})
    assert status == 200 and "tools" in resp["result"], resp
    from conftest import ADMIN_TOKEN
    status, _, orgs = server.request("GET", "/admin/v1/orgs", headers={"authorization": f"BEARER {ADMIN_TOKEN}"})
    assert status == 200, orgs


def test_notifications_cancelled_ends_the_call_it_names(daemon, llm):
    """The 2025 way: the call's own connection stays open; a notification on another names it."""
    daemon.agent("slow")
    llm.push({**openai_text("too late"), "delay": 5})
    headers = {"content-type": "application/json", "fl-api-org": "acme", "fl-api-env": "prod",
               "fl-api-token": daemon.token, "mcp-protocol-version": "2025-11-25", "mcp-session-id": "s-1"}
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "slow", "arguments": {"message": "take your time"}}}
    answer = {}
    started = time.monotonic()
    runner = threading.Thread(target=lambda: answer.update(
        zip(("status", "headers", "body"), daemon.server.request("POST", "/mcp", call, headers, timeout=10))))
    runner.start()
    time.sleep(0.5)
    # Another session's notification for the same id cancels nothing.
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
    assert daemon.server.request("POST", "/mcp", cancel, dict(headers, **{"mcp-session-id": "s-2"}))[0] == 202
    time.sleep(0.3)
    assert runner.is_alive()
    assert daemon.server.request("POST", "/mcp", cancel, headers)[0] == 202
    runner.join(5)
    assert not runner.is_alive() and time.monotonic() - started < 3
    assert answer["status"] == 200
    result = answer["body"]["result"]
    assert result["isError"] and text_of(result).startswith("499 canceled:")
    assert "resultType" not in result  # a 2025 result
    deadline = time.monotonic() + 3
    while llm.disconnects == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert llm.disconnects == 1


def test_a_2025_06_18_client_is_answered_in_its_version(daemon, llm):
    daemon.agent("helper")
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "fl-api-org": "acme", "fl-api-env": "prod", "fl-api-token": daemon.token}
    status, answer_headers, body = daemon.server.request("POST", "/mcp", {
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}},
        headers)
    assert status == 200 and body["result"]["protocolVersion"] == "2025-06-18"
    assert body["result"]["capabilities"]["tools"] == {"listChanged": False}
    session = answer_headers["mcp-session-id"]
    headers.update({"mcp-protocol-version": "2025-06-18", "mcp-session-id": session})
    assert daemon.server.request("POST", "/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"},
                                 headers)[0] == 202
    status, _, body = daemon.server.request("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers)
    assert status == 200 and [t["name"] for t in body["result"]["tools"]] == ["helper"]
    assert "resultType" not in body["result"]
    status, _, body = daemon.server.request("POST", "/mcp", {"jsonrpc": "2.0", "id": 2, "method": "resources/list"}, headers)
    assert status == 200 and body["error"]["code"] == -32601
