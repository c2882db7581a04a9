"""Agents using the tools of MCP servers (SPEC §10), through the binary, against the protocol's
reference server and servers built on the official TypeScript SDK (tests/counterparts, pinned)."""
import json
import time

import pytest

import stores
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text, openai_tools
from counterparts import EverythingServer, SdkServer, free_port


@pytest.fixture
def daemon(llm, start_server):
    llm.reset()
    # The variables its MCP servers' headers read are listed (docs/daemon.md "Tool headers").
    server = start_server(config_for(llm) + '\n[tools]\nheader_env = ["DOCS_TOKEN", "NOT_SET_*"]\n',
                          env={"FAKE_LLM_KEY": API_KEY, "DOCS_TOKEN": "Bearer docs-secret"})
    return Tenant(server)


def mcp_tool(name, url, **extra):
    return {"type": "mcp", "name": name, "url": url, **extra}


def tool_messages(request):
    return [m["content"] for m in request["body"]["messages"] if m["role"] == "tool"]


def offered(request):
    return sorted(t["function"]["name"] for t in request["body"].get("tools", []))


def transcript_of(daemon, headers):
    status, _, turn = daemon.server.admin("GET", f"/orgs/acme/turns/{headers['x-agentgate-turn-id']}")
    assert status == 200, turn
    return turn["transcript"]


def test_an_agent_calls_the_reference_servers_tools(daemon, llm):
    """server-everything speaks 2025-11-25 with sessions and answers over SSE: agentgate falls back
    from 2026-07-28, initializes, and the model reads the real results."""
    everything = EverythingServer()
    try:
        daemon.agent("helper", tools=[mcp_tool("everything", everything.url,
                                               allowed_tools=["echo", "get-sum", "get-tiny-image"])])
        llm.push(openai_tools([("everything__echo", {"message": "hello mcp"}),
                               ("everything__get-sum", {"a": 2, "b": 3}),
                               ("everything__get-tiny-image", {})]),
                 openai_text("Done."))
        status, _, body = daemon.invoke("helper", {"message": "use your tools"})
        assert status == 200 and body["response"] == "Done.", body
        assert offered(llm.requests[0]) == ["everything__echo", "everything__get-sum", "everything__get-tiny-image"]
        echo, total, image = tool_messages(llm.requests[1])
        assert echo == "Echo: hello mcp"
        assert total == "The sum of 2 and 3 is 5."
        assert "[image (image/png, about" in image and "not shown]" in image and "MCP logo" in image
        assert len(image) < 400  # the picture itself never reaches the model
    finally:
        everything.close()


@pytest.mark.parametrize("response", ["json", "sse"])
def test_a_current_revision_server_in_both_response_forms(daemon, llm, response):
    docs = SdkServer("modern", response)
    try:
        daemon.agent("shop", tools=[mcp_tool("docs", docs.url, headers={"Authorization": {"env": "DOCS_TOKEN"}})])
        llm.push(openai_tools([("docs__lookup", {"order_id": "A-1"}), ("docs__fail", {})]), openai_text("Shipped."))
        status, _, body = daemon.invoke("shop", {"message": "where is A-1?"})
        assert status == 200 and body["response"] == "Shipped.", body
        assert offered(llm.requests[0]) == ["docs__fail", "docs__lookup", "docs__refund", "docs__slow"]
        found, failed = tool_messages(llm.requests[1])
        assert found == 'Order A-1 has shipped.\n{"order_id":"A-1","status":"shipped","items":2}'
        assert failed == "error: the warehouse is closed"
        posts = docs.events("post")
        assert {p["version"] for p in posts} == {"2026-07-28"}  # no fallback, no handshake
        assert [p["method"] for p in posts] == ["tools/list", "tools/call", "tools/call"]
        assert [p["name"] for p in posts if p["method"] == "tools/call"] == ["lookup", "fail"]
        assert {p["auth"] for p in posts} == {"Bearer docs-secret"}  # read from the environment

        # The list is cached: a second turn calls without listing again.
        llm.push(openai_tools([("docs__lookup", {"order_id": "B-2"})]), openai_text("Also shipped."))
        assert daemon.invoke("shop", {"message": "and B-2?"})[0] == 200
        assert [p["method"] for p in docs.events("post")].count("tools/list") == 1
    finally:
        docs.close()


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18"])
def test_a_legacy_server_is_spoken_to_after_the_initialize_handshake(daemon, llm, version):
    docs = SdkServer("legacy", version=version)
    try:
        daemon.agent("shop", tools=[mcp_tool("docs", docs.url)])
        llm.push(openai_tools([("docs__lookup", {"order_id": "C-3"})]), openai_text("ok"))
        status, _, body = daemon.invoke("shop", {"message": "C-3?"})
        assert status == 200, body
        assert tool_messages(llm.requests[1])[0].startswith("Order C-3 has shipped.")
        methods = [(p["method"], p["version"]) for p in docs.events("post")]
        # The modern probe is refused without a modern error; then initialize, initialized, and the
        # requests in the negotiated version with the session.
        assert methods[0] == ("tools/list", "2026-07-28")
        assert methods[1][0] == "initialize"
        assert methods[2] == ("notifications/initialized", version)
        assert methods[3:] == [("tools/list", version), ("tools/call", version)]
    finally:
        docs.close()


def test_a_server_that_is_down_leaves_its_tools_out_and_the_turn_goes_on(daemon, llm):
    docs = SdkServer("modern")
    try:
        daemon.agent("shop", tools=[mcp_tool("gone", f"http://127.0.0.1:{free_port()}/mcp"),
                                    mcp_tool("docs", docs.url, allowed_tools=["lookup"]),
                                    mcp_tool("keyless", docs.url, headers={"Authorization": {"env": "NOT_SET_ANYWHERE"}})])
        llm.push(openai_text("I answered without those tools."))
        status, headers, body = daemon.invoke("shop", {"message": "hi"})
        assert status == 200 and body["response"] == "I answered without those tools.", body
        assert offered(llm.requests[0]) == ["docs__lookup"]
        notes = transcript_of(daemon, headers)["notes"]
        assert any(n.startswith("mcp server 'gone' left out:") for n in notes), notes
        assert any("NOT_SET_ANYWHERE, which is not set" in n for n in notes), notes
    finally:
        docs.close()


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_slow_tool_is_canceled_when_the_turn_must_answer(llm, start_server, era):
    """The soft deadline bounds a tool call; the call is then canceled on the server: by closing the
    request's stream (2026-07-28) or with notifications/cancelled (2025-11-25)."""
    llm.reset()
    server = start_server(config_for(llm, "answer_early_seconds = 1\nturn_timeout_seconds = 4"),
                          env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    docs = SdkServer(era)
    try:
        tenant.agent("shop", tools=[mcp_tool("docs", docs.url)])
        llm.push(openai_tools([("docs__slow", {"seconds": 30})], text="Let me check."))
        started = time.monotonic()
        status, _, body = tenant.invoke("shop", {"message": "slow please"})
        assert status == 200 and body["terminated_reason"] == "turn_timeout", body
        assert time.monotonic() - started < 3
        deadline = time.monotonic() + 5
        while not docs.events("cancelled") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert docs.events("cancelled"), docs.events()
        if era == "legacy":
            assert docs.events("cancel-notification"), docs.events()
    finally:
        docs.close()


def test_tool_headers_can_name_a_sealed_tool_secret(daemon, llm):
    """{"secret": NAME} is opened when the tool is called: a replaced secret is used from the next
    call on; a deleted one leaves the server out with a note; no value is ever read back or stored
    in the clear."""
    docs = SdkServer("modern")
    try:
        status, _, body = daemon.server.admin("PUT", "/orgs/acme/secrets/docs_key", {"value": "Bearer sealed-one"})
        assert status == 200 and body == {"name": "docs_key", "set": True}
        _, _, listed = daemon.server.admin("GET", "/orgs/acme/secrets")
        assert [s["name"] for s in listed["secrets"]] == ["docs_key"] and "sealed-one" not in json.dumps(listed)
        assert b"sealed-one" not in stores.stored_bytes(daemon.server.store_url)

        daemon.agent("shop", tools=[mcp_tool("docs", docs.url, headers={"Authorization": {"secret": "docs_key"}})])
        llm.push(openai_tools([("docs__lookup", {"order_id": "A-1"})]), openai_text("ok"))
        assert daemon.invoke("shop", {"message": "A-1?"})[0] == 200
        assert {p["auth"] for p in docs.events("post")} == {"Bearer sealed-one"}

        daemon.server.admin("PUT", "/orgs/acme/secrets/docs_key", {"value": "Bearer sealed-two"})
        llm.push(openai_tools([("docs__lookup", {"order_id": "B-2"})]), openai_text("ok"))
        assert daemon.invoke("shop", {"message": "B-2?"})[0] == 200
        assert docs.events("post")[-1]["auth"] == "Bearer sealed-two"

        assert daemon.server.admin("DELETE", "/orgs/acme/secrets/docs_key")[0] == 200
        assert daemon.server.admin("DELETE", "/orgs/acme/secrets/docs_key")[0] == 404
        llm.push(openai_text("without the docs"))
        status, headers, body = daemon.invoke("shop", {"message": "C-3?"})
        assert status == 200 and body["response"] == "without the docs"
        notes = transcript_of(daemon, headers)["notes"]
        assert any("names tool secret 'docs_key', which is not set" in n for n in notes), notes
        assert "sealed" not in json.dumps(notes)

        status, _, body = daemon.server.admin("PUT", "/orgs/acme/secrets/bad%20name", {"value": "x"})
        assert status == 400
        status, _, body = daemon.server.admin("PUT", "/orgs/acme/secrets/k", {"value": "a\r\nX-Evil: 1"})
        assert status == 400 and "'value'" in body["error"]["message"]
    finally:
        docs.close()


def test_a_writes_server_runs_the_tools_it_marks_read_only_and_pauses_for_the_others(daemon, llm):
    """The SDK server marks lookup read-only (annotations.readOnlyHint): with "approval": "writes" it
    runs at once, while a step calling fail (no hints: it may write) pauses for approval, before
    any of its calls runs (docs/daemon.md, Tool approvals)."""
    docs = SdkServer("modern", "json")
    try:
        daemon.agent("shop", tools=[mcp_tool("docs", docs.url, approval="writes",
                                             headers={"Authorization": {"env": "DOCS_TOKEN"}})])
        llm.push(openai_tools([("docs__lookup", {"order_id": "A-1"})]), openai_text("Shipped."))
        status, _, body = daemon.invoke("shop", {"message": "where is A-1?"})
        assert status == 200 and body["response"] == "Shipped." and "run_id" not in body, body
        llm.push(openai_tools([("docs__lookup", {"order_id": "B-2"}), ("docs__fail", {})]))
        status, _, body = daemon.invoke("shop", {"message": "and B-2?"})
        assert status == 200 and body["terminated_reason"] == "approval_required", body
        assert [a["tool"] for a in body["pending_actions"]] == ["docs__fail"]
        calls = [p["name"] for p in docs.events("post") if p["method"] == "tools/call"]
        assert calls == ["lookup"]  # the first turn's; nothing of the paused step
    finally:
        docs.close()
