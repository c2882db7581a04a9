"""OpenTelemetry traces (docs/tracing.md), decoded by a receiver built on the official OpenTelemetry
JavaScript packages (tests/counterparts/otlp_receiver.mjs, pinned): a turn's span tree with the GenAI
conventions' names and parent links under the caller's traceparent, the trace carried to the model
provider, sampling, no prompt or withheld text exported, and a collector that refuses or is down
leaving turns unaffected."""
import json
import os
import subprocess
import time

import pytest

import counterparts
from counterparts import SdkServer
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import FakeToolServer, openai_error, openai_text, openai_tools
from fakes.fake_salesforce import FakeSalesforce
from gateway_harness import Gateway

CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"
MCP_CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c"
MCP_CALLER_SPAN = "b7ad6b7169203331"


class Receiver:
    def __init__(self, path, fail=0):
        self.path = path
        self.proc = subprocess.Popen(["node", "otlp_receiver.mjs", "--out", str(path), "--fail", str(fail)],
                                     cwd=counterparts.counterparts_dir(), stdout=subprocess.PIPE, text=True)
        self.port = json.loads(self.proc.stdout.readline())["port"]
        self.endpoint = f"http://127.0.0.1:{self.port}/v1/traces"

    def exports(self):
        if not os.path.exists(self.path):
            return []
        # The receiver appends a line per export: one it is still writing has no newline yet.
        with open(self.path) as f:
            return [json.loads(line) for line in f if line.endswith("\n") and line.strip()]

    def spans(self):
        out = []
        for export in self.exports():
            for resource_spans in export["request"].get("resourceSpans", []):
                for scope_spans in resource_spans.get("scopeSpans", []):
                    out += scope_spans.get("spans", [])
        return out

    def wait_for(self, predicate, within=10.0):
        deadline = time.monotonic() + within
        while not predicate(self.spans()):
            assert time.monotonic() < deadline, self.spans()
            time.sleep(0.1)
        return self.spans()

    def close(self):
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def receiver(tmp_path):
    started = []

    def start(fail=0):
        r = Receiver(tmp_path / f"exports{len(started)}.jsonl", fail)
        started.append(r)
        return r

    yield start
    for r in started:
        r.close()


def traced(start_server, llm, endpoint, extra=""):
    config = config_for(llm) + f'\n[tracing]\nendpoint = "{endpoint}"\nheaders_env = "COLLECTOR_HEADERS"\n' + extra
    server = start_server(config, env={"FAKE_LLM_KEY": API_KEY, "COLLECTOR_HEADERS": "x-collector-key=k%3D1"})
    return Tenant(server)


def attributes(span):
    out = {}
    for a in span.get("attributes", []):
        value = a["value"]
        out[a["key"]] = next(iter(value.values())) if value else None
    return out


def test_a_turns_spans_follow_the_callers_trace_with_the_genai_conventions(start_server, llm, receiver):
    collector = receiver()
    tools = FakeToolServer()
    try:
        tenant = traced(start_server, llm, collector.endpoint, 'compression = "gzip"\n')
        tenant.agent("shop", tools=[{"type": "http", "name": "track", "description": "Track",
                                     "parameters": {"type": "object"},
                                     "url": f"http://127.0.0.1:{tools.port}/track", "method": "POST"}])
        llm.push(openai_error(503, "server_error"), openai_tools([("track", {"order": "A-1"})]),
                 openai_text("It ships Monday.", input_tokens=30, output_tokens=7))
        status, _, body = tenant.invoke("shop", {"message": "where is A-1?"},
                                        headers={"traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01",
                                                 "tracestate": "congo=t61rcWkgMzE"})
        assert status == 200 and body["response"] == "It ships Monday.", body
        everything = collector.wait_for(lambda s: any(x["traceId"] == CALLER_TRACE and
                                                      x["kind"] == "SPAN_KIND_SERVER" for x in s))
    finally:
        tools.close()
    tool_calls = tools.calls
    # The admin calls that set the tenant up have traces of their own.
    spans = [s for s in everything if s["traceId"] == CALLER_TRACE]
    # The request, the turn, three model calls and their spend reservations, one tool call, the
    # turn's commit.
    assert len(spans) == 10, [s["name"] for s in spans]
    server = next(s for s in spans if s["kind"] == "SPAN_KIND_SERVER")
    assert server["name"] == "POST /api/agents/{agent_id}/invoke"
    assert server["parentSpanId"] == CALLER_SPAN and server["traceState"] == "congo=t61rcWkgMzE"
    assert attributes(server)["http.route"] == "/api/agents/{agent_id}/invoke"
    assert attributes(server)["http.response.status_code"] == "200"
    assert attributes(server)["url.path"] == "/api/agents/shop/invoke"
    turn = next(s for s in spans if s["name"] == "invoke_agent shop")
    assert turn["parentSpanId"] == server["spanId"]
    turn_attributes = attributes(turn)
    assert turn_attributes["gen_ai.operation.name"] == "invoke_agent"
    assert turn_attributes["gen_ai.agent.id"] == "shop"
    assert turn_attributes["agentgate.org"] == "acme" and turn_attributes["agentgate.blocked"] is False
    chats = sorted((s for s in spans if s["name"] == "chat gpt-test"), key=lambda s: s["startTimeUnixNano"])
    assert len(chats) == 3 and all(c["parentSpanId"] == turn["spanId"] for c in chats)
    assert all(c["kind"] == "SPAN_KIND_CLIENT" for c in chats)
    assert chats[0]["status"]["code"] == "STATUS_CODE_ERROR"  # the 503, retried in a span of its own
    assert attributes(chats[0])["error.type"] == "transient"
    last = attributes(chats[2])
    assert last["gen_ai.provider.name"] == "fake-openai" and last["gen_ai.request.model"] == "gpt-test"
    assert last["gen_ai.usage.input_tokens"] == "30" and last["gen_ai.usage.output_tokens"] == "7"
    assert last["gen_ai.response.model"] == "gpt-test-0001"  # as the provider's reply named it
    reservations = [s for s in spans if s["name"] == "reserve_spend"]
    assert sorted(r["parentSpanId"] for r in reservations) == sorted(c["spanId"] for c in chats)
    assert all(attributes(r)["agentgate.spend.reserved"] is True for r in reservations)
    commit = next(s for s in spans if s["name"] == "commit_turn")
    assert commit["parentSpanId"] == turn["spanId"] and commit["kind"] == "SPAN_KIND_INTERNAL"
    tool = next(s for s in spans if s["name"] == "execute_tool track")
    assert tool["parentSpanId"] == turn["spanId"]
    assert attributes(tool)["gen_ai.tool.name"] == "track" and attributes(tool)["gen_ai.tool.call.id"] == "call_0"
    # Each model call carried its own span as the parent, in the caller's trace.
    sent = [r["headers"].get("traceparent") for r in llm.requests]
    assert sent == [f"00-{CALLER_TRACE}-{c['spanId']}-01" for c in chats]
    # So did the tool call, with its own span.
    assert tool_calls[0]["headers"]["traceparent"] == f"00-{CALLER_TRACE}-{tool['spanId']}-01"
    # The request's log line names its trace and span, so logs and traces join.
    assert tenant.server.logged(lambda e: e.get("event") == "http_request" and
                                e.get("trace_id") == CALLER_TRACE and e.get("span_id") == server["spanId"])
    # The exports went as the collector's operator asked.
    export = collector.exports()[0]
    assert export["headers"] == {"content-type": "application/x-protobuf", "content-encoding": "gzip",
                                 "x-collector-key": "k=1"}
    resource = {a["key"]: a["value"]["stringValue"] for a in export["request"]["resourceSpans"][0]["resource"]["attributes"]}
    assert resource["service.name"] == "agentgate"
    # The GenAI client metrics: three calls timed (one failed), two answered with their tokens.
    _, _, metrics = tenant.server.request("GET", "/metrics")
    labels = 'gen_ai_operation_name="chat",gen_ai_provider_name="fake-openai",gen_ai_request_model="gpt-test"'
    assert f'gen_ai_client_operation_duration_seconds_count{{{labels},error_type="transient"}} 1' in metrics
    assert f'gen_ai_client_operation_duration_seconds_count{{{labels},error_type=""}} 2' in metrics
    assert f'gen_ai_client_token_usage_sum{{{labels},gen_ai_token_type="input"}}' in metrics
    assert f'gen_ai_client_token_usage_bucket{{{labels},gen_ai_token_type="output",le="16"}} 2' in metrics


def test_by_default_exports_are_the_plain_protobuf_the_official_decoder_reads(start_server, llm, receiver):
    collector = receiver()
    tenant = traced(start_server, llm, collector.endpoint)  # compression none, as the SDKs default
    tenant.agent("bot")
    llm.push(openai_text("Hello."))
    status, _, _ = tenant.invoke("bot", {"message": "hi"})
    assert status == 200
    collector.wait_for(lambda s: any(x["name"] == "invoke_agent bot" for x in s))
    export = collector.exports()[0]
    assert "content-encoding" not in export["headers"]
    assert export["headers"]["content-type"] == "application/x-protobuf"


def test_no_prompt_or_withheld_text_is_exported_and_a_zero_ratio_exports_nothing(start_server, llm, receiver):
    collector = receiver()
    tenant = traced(start_server, llm, collector.endpoint)
    tenant.agent("bot", safety={"block_patterns": ["(?i)internal only"], "placeholder": "Withheld."})
    llm.push(openai_text("Internal only: the floor price is 40 percent."))
    status, _, body = tenant.invoke("bot", {"message": "my secret question about pricing"})
    assert status == 200 and body["blocked"] is True
    collector.wait_for(lambda s: any(x["name"] == "invoke_agent bot" for x in s))
    exported = json.dumps(collector.exports())
    assert "floor price" not in exported and "secret question" not in exported
    assert any(attributes(s).get("agentgate.blocked") is True for s in collector.spans())

    quiet = receiver()
    tenant = traced(start_server, llm, quiet.endpoint, "sample_ratio = 0.0\n")
    tenant.agent("bot")
    assert tenant.invoke("bot", {"message": "hi"})[0] == 200
    time.sleep(2.5)  # past the exporter's 1 s batch interval
    assert quiet.exports() == []
    assert llm.requests[-1]["headers"].get("traceparent", "").endswith("-00")  # carried, not sampled


def test_a_background_runs_turn_continues_the_trace_of_the_request_that_queued_it(start_server, llm, receiver):
    collector = receiver()
    tenant = traced(start_server, llm, collector.endpoint)
    tenant.agent("bot")
    llm.push(openai_text("Done in the background."))
    status, _, queued = tenant.invoke("bot", {"message": "later", "background": True},
                                      headers={"traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"})
    assert status == 202, queued
    spans = collector.wait_for(lambda s: any(x["name"] == "invoke_agent bot" for x in s) and
                               any(x["traceId"] == CALLER_TRACE and x["kind"] == "SPAN_KIND_SERVER" for x in s))
    request = next(s for s in spans if s["traceId"] == CALLER_TRACE and s["kind"] == "SPAN_KIND_SERVER")
    turn = next(s for s in spans if s["name"] == "invoke_agent bot")
    assert turn["traceId"] == CALLER_TRACE and turn["parentSpanId"] == request["spanId"]
    assert int(turn["startTimeUnixNano"]) >= int(request["startTimeUnixNano"])
    assert attributes(turn)["agentgate.run_id"] == queued["run_id"]
    chat = next(s for s in spans if s["name"] == "chat gpt-test")
    assert llm.requests[-1]["headers"]["traceparent"] == f"00-{CALLER_TRACE}-{chat['spanId']}-01"


def test_a_streamed_turn_continues_the_trace_of_its_request(start_server, llm, receiver):
    collector = receiver()
    tenant = traced(start_server, llm, collector.endpoint)
    tenant.agent("bot")
    llm.push(openai_text("Streamed and traced."))
    status, _, raw = tenant.invoke("bot", {"message": "watch", "stream": True},
                                   headers={"traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"})
    assert status == 200 and "event: run.completed" in raw, raw
    run_id = json.loads(raw.split("data: ", 1)[1].split("\n", 1)[0])["run_id"]
    spans = collector.wait_for(lambda s: any(x["name"] == "invoke_agent bot" for x in s) and
                               any(x["traceId"] == CALLER_TRACE and x["kind"] == "SPAN_KIND_SERVER" for x in s))
    request = next(s for s in spans if s["traceId"] == CALLER_TRACE and s["kind"] == "SPAN_KIND_SERVER")
    turn = next(s for s in spans if s["name"] == "invoke_agent bot")
    assert turn["traceId"] == CALLER_TRACE and turn["parentSpanId"] == request["spanId"]
    assert attributes(turn)["agentgate.run_id"] == run_id
    chat = next(s for s in spans if s["name"] == "chat gpt-test")
    assert chat["parentSpanId"] == turn["spanId"]
    assert llm.requests[-1]["headers"]["traceparent"] == f"00-{CALLER_TRACE}-{chat['spanId']}-01"


def test_content_capture_exports_prompts_and_replies_but_never_withheld_text(start_server, llm, receiver):
    collector = receiver()
    tenant = traced(start_server, llm, collector.endpoint, "capture_content = true\n")
    tenant.agent("bot", instructions="Answer briefly.",
                 safety={"block_patterns": ["(?i)internal only"], "placeholder": "Withheld."})
    llm.push(openai_text("Internal only: the floor price is 40 percent."), openai_text("It ships Monday."))
    assert tenant.invoke("bot", {"message": "what is the floor price?"})[2]["blocked"] is True
    assert tenant.invoke("bot", {"message": "when does it ship?"})[2]["response"] == "It ships Monday."
    spans = collector.wait_for(lambda s: sum(1 for x in s if x["name"] == "invoke_agent bot") == 2)
    exported = json.dumps(collector.exports())
    assert "floor price is 40" not in exported
    chats = sorted((s for s in spans if s["name"] == "chat gpt-test"), key=lambda s: s["startTimeUnixNano"])
    first, second = (attributes(c) for c in chats)
    assert json.loads(first["gen_ai.input.messages"]) == [
        {"role": "user", "parts": [{"type": "text", "content": "what is the floor price?"}]}]
    assert "Answer briefly." in json.loads(first["gen_ai.system_instructions"])[0]["content"]
    assert json.loads(first["gen_ai.output.messages"])[0]["parts"] == [{"type": "text", "content": "Withheld."}]
    assert json.loads(second["gen_ai.output.messages"])[0]["parts"] == [{"type": "text", "content": "It ships Monday."}]
    turns = sorted((s for s in spans if s["name"] == "invoke_agent bot"), key=lambda s: s["startTimeUnixNano"])
    assert json.loads(attributes(turns[0])["gen_ai.output.messages"])[0]["parts"][0]["content"] == "Withheld."


def test_collector_headers_sealed_under_the_master_key_reach_the_collector(start_server, llm, receiver, tmp_path):
    from conftest import BINARY, MASTER_KEY
    env = {"AGENTGATE_MASTER_KEY": MASTER_KEY, "PATH": os.environ["PATH"]}
    sealed = subprocess.run([BINARY, "seal", "tracing.headers"], input="x-vendor-key=s3cret,x-team=crm\n",
                            capture_output=True, text=True, timeout=10, env=env)
    assert sealed.returncode == 0, sealed.stderr
    value = sealed.stdout.strip()
    assert "s3cret" not in value
    collector = receiver()
    server = start_server(config_for(llm) + f'\n[tracing]\nendpoint = "{collector.endpoint}"\n'
                                            f'headers_sealed = "{value}"\n', env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("bot")
    assert tenant.invoke("bot", {"message": "hi"})[0] == 200
    collector.wait_for(lambda s: any(x["name"] == "invoke_agent bot" for x in s))
    headers = collector.exports()[0]["headers"]
    assert headers["x-vendor-key"] == "s3cret" and headers["x-team"] == "crm"

    # Malformed headers are refused before sealing; a value sealed under another key, or with no
    # key at all, stops the start naming the setting and never quoting it.
    bad = subprocess.run([BINARY, "seal", "tracing.headers"], input="no equals sign", capture_output=True,
                         text=True, timeout=10, env=env)
    assert bad.returncode != 0 and "no equals sign" not in bad.stderr
    config = tmp_path / "sealed.toml"
    config.write_text(f'[server]\nlisten = "127.0.0.1:0"\n[tracing]\nendpoint = "{collector.endpoint}"\n'
                      f'headers_sealed = "{value}"\n')
    for master_key in ("ab" * 32, None):
        run_env = {"PATH": os.environ["PATH"], **({"AGENTGATE_MASTER_KEY": master_key} if master_key else {})}
        proc = subprocess.run([BINARY, "serve", "--config", str(config)], capture_output=True, text=True,
                              timeout=10, env=run_env)
        assert proc.returncode != 0 and "tracing.headers_sealed" in proc.stderr, proc.stderr
        assert "s3cret" not in proc.stderr


def test_a_collector_that_refuses_or_is_down_leaves_turns_unaffected(start_server, llm, receiver):
    refusing = receiver(fail=2)
    tenant = traced(start_server, llm, refusing.endpoint)
    tenant.agent("bot")
    started = time.monotonic()
    assert tenant.invoke("bot", {"message": "hi"})[0] == 200
    assert time.monotonic() - started < 2
    refusing.wait_for(lambda s: any(x["name"] == "invoke_agent bot" for x in s))  # after two 503s
    _, _, metrics = tenant.server.request("GET", "/metrics")
    assert 'agentgate_trace_export_requests_total{outcome="retried"} 2' in metrics

    down = receiver()
    down.close()  # nothing listens there now
    tenant = traced(start_server, llm, down.endpoint)
    tenant.agent("bot")
    started = time.monotonic()
    for _ in range(5):
        assert tenant.invoke("bot", {"message": "hi"})[0] == 200
    assert time.monotonic() - started < 3


def test_mcp_requests_are_client_spans_whose_trace_reaches_the_server_in_header_and_meta(start_server, llm, receiver):
    collector = receiver()
    modern, legacy = SdkServer("modern"), SdkServer("legacy")
    try:
        tenant = traced(start_server, llm, collector.endpoint)
        tenant.agent("shop", tools=[{"type": "mcp", "name": "docs", "url": modern.url},
                                    {"type": "mcp", "name": "old", "url": legacy.url}])
        llm.push(openai_tools([("docs__lookup", {"order_id": "A-1"}), ("old__lookup", {"order_id": "A-2"})]),
                 openai_text("Both shipped."))
        status, _, body = tenant.invoke("shop", {"message": "where are A-1 and A-2?"},
                                        headers={"traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"})
        assert status == 200 and body["response"] == "Both shipped.", body
        spans = collector.wait_for(lambda s: any(x["traceId"] == CALLER_TRACE and x["kind"] == "SPAN_KIND_SERVER"
                                                 for x in s))
        modern_posts, legacy_posts = modern.events("post"), legacy.events("post")
    finally:
        modern.close()
        legacy.close()
    spans = [s for s in spans if s["traceId"] == CALLER_TRACE]
    turn = next(s for s in spans if s["name"] == "invoke_agent shop")
    lists = [s for s in spans if s["name"] == "tools/list"]
    assert len(lists) == 2 and all(s["parentSpanId"] == turn["spanId"] and s["kind"] == "SPAN_KIND_CLIENT"
                                   for s in lists)
    calls = {attributes(s)["server.port"]: s for s in spans if s["name"] == "tools/call lookup"}
    assert set(calls) == {str(modern.port), str(legacy.port)}
    for port, tool, version in ((modern.port, "docs__lookup", "2026-07-28"), (legacy.port, "old__lookup", "2025-11-25")):
        call = calls[str(port)]
        assert call["kind"] == "SPAN_KIND_CLIENT"
        assert call["parentSpanId"] == next(s for s in spans if s["name"] == f"execute_tool {tool}")["spanId"]
        a = attributes(call)
        assert a["mcp.method.name"] == "tools/call" and a["gen_ai.tool.name"] == "lookup"
        assert a["server.address"] == "127.0.0.1" and a["mcp.protocol.version"] == version
    assert attributes(calls[str(legacy.port)])["mcp.session.id"]
    # Each request carried its client span as the parent, in the HTTP header and in params._meta.
    for posts, port in ((modern_posts, modern.port), (legacy_posts, legacy.port)):
        sent = [p for p in posts if p["method"] == "tools/call"]
        expected = f"00-{CALLER_TRACE}-{calls[str(port)]['spanId']}-01"
        assert [(p["traceparent"], p["meta_traceparent"]) for p in sent] == [(expected, expected)], posts


def test_an_mcp_tools_call_is_a_server_span_under_the_trace_in_its_meta(start_server, llm, receiver):
    collector = receiver()
    tenant = traced(start_server, llm, collector.endpoint)
    tenant.agent("helper")
    llm.push(openai_text("Hello over MCP."))
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "traceparent": f"00-{MCP_CALLER_TRACE}-{MCP_CALLER_SPAN}-01"}
    headers = {"content-type": "application/json", "fl-api-org": "acme", "fl-api-env": "prod",
               "fl-api-token": tenant.token, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
               "mcp-name": "helper"}
    status, _, reply = tenant.server.request(
        "POST", "/mcp", {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                         "params": {"name": "helper", "arguments": {"message": "hi"}, "_meta": meta}}, headers)
    assert status == 200 and reply["result"]["isError"] is False, reply
    spans = collector.wait_for(lambda s: any(x["name"] == "tools/call helper" for x in s) and
                               any(x["name"] == "POST /mcp" for x in s))
    call = next(s for s in spans if s["name"] == "tools/call helper")
    assert call["kind"] == "SPAN_KIND_SERVER"
    assert call["traceId"] == MCP_CALLER_TRACE and call["parentSpanId"] == MCP_CALLER_SPAN
    a = attributes(call)
    assert a["mcp.method.name"] == "tools/call" and a["gen_ai.tool.name"] == "helper"
    assert a["jsonrpc.request.id"] == "7" and a["mcp.protocol.version"] == "2026-07-28"
    turn = next(s for s in spans if s["name"] == "invoke_agent helper")
    assert turn["traceId"] == MCP_CALLER_TRACE and turn["parentSpanId"] == call["spanId"]


def test_a_gateway_call_its_requests_and_its_oauth_refresh_are_spans(start_server, receiver):
    collector = receiver()
    org = FakeSalesforce()
    try:
        gw = Gateway(start_server(f'[tracing]\nendpoint = "{collector.endpoint}"\n'), org)
        status, _, envelope = gw.call({"method": "GET", "path": "tooling/sobjects"},
                                      headers={"traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"})
        assert status == 200 and envelope["ok"], envelope
        spans = collector.wait_for(lambda s: any(x["traceId"] == CALLER_TRACE and x["kind"] == "SPAN_KIND_SERVER"
                                                 for x in s))
        sent = list(org.requests)
    finally:
        org.close()
    spans = [s for s in spans if s["traceId"] == CALLER_TRACE]
    server = next(s for s in spans if s["kind"] == "SPAN_KIND_SERVER")
    call = next(s for s in spans if s["name"] == "metadata_gateway GET")
    assert call["parentSpanId"] == server["spanId"]
    a = attributes(call)
    assert a["agentgate.crm.endpoint"] == "/services/data/v64.0/tooling/sobjects"
    assert a["agentgate.crm.status"] == "200" and a["agentgate.org.id"] == "acme"
    refresh = next(s for s in spans if s["name"] == "oauth_refresh")
    assert refresh["parentSpanId"] == call["spanId"] and refresh["kind"] == "SPAN_KIND_CLIENT"
    assert attributes(refresh)["http.response.status_code"] == "200"
    request = next(s for s in spans if s["name"] == "GET")
    assert request["parentSpanId"] == call["spanId"] and request["kind"] == "SPAN_KIND_CLIENT"
    assert attributes(request)["http.response.status_code"] == "200"
    assert attributes(request)["url.path"] == "/services/data/v64.0/tooling/sobjects"
    # Salesforce saw each request's span as its parent; the refresh form never reached an export.
    token_call = next(r for r in sent if r["path"].startswith("/services/oauth2/token"))
    data_call = next(r for r in sent if r["path"].endswith("/tooling/sobjects"))
    assert token_call["headers"]["traceparent"] == f"00-{CALLER_TRACE}-{refresh['spanId']}-01"
    assert data_call["headers"]["traceparent"] == f"00-{CALLER_TRACE}-{request['spanId']}-01"
    assert org.client_secret not in json.dumps(collector.exports())


def test_an_a2a_message_is_a_server_span_under_the_callers_trace_and_its_turn_under_it(start_server, llm, receiver):
    from test_openai_api import new_key
    collector = receiver()
    tenant = traced(start_server, llm, collector.endpoint)
    tenant.agent("bot")
    key = new_key(tenant)
    llm.push(openai_text("Traced over A2A."))
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "t-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
    status, _, answer = tenant.server.request(
        "POST", f"/a2a/{tenant.org}/prod/bot/", body,
        headers={"authorization": f"Bearer {key}", "a2a-version": "1.0", "content-type": "application/json",
                 "traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"})
    assert status == 200 and answer["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED", answer
    spans = collector.wait_for(lambda s: any(x["name"] == "invoke_agent bot" for x in s) and
                               any(x["traceId"] == CALLER_TRACE and x["kind"] == "SPAN_KIND_SERVER" for x in s))
    request = next(s for s in spans if s["traceId"] == CALLER_TRACE and s["kind"] == "SPAN_KIND_SERVER")
    assert request["parentSpanId"] == CALLER_SPAN
    turn = next(s for s in spans if s["name"] == "invoke_agent bot")
    assert turn["traceId"] == CALLER_TRACE and turn["parentSpanId"] == request["spanId"]
    assert attributes(turn)["agentgate.run_id"] == answer["result"]["task"]["id"]
