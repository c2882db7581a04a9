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
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import FakeToolServer, openai_error, openai_text, openai_tools

CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"


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
        with open(self.path) as f:
            return [json.loads(line) for line in f if line.strip()]

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
        tenant = traced(start_server, llm, collector.endpoint)
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
    assert len(spans) == 6, spans  # the request, the turn, three model calls, one tool call
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
