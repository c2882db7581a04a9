"""Answers held to a JSON Schema (docs/structured-output.md), through the binary: the version's
output_schema and a call's response_format, as each provider is asked for them natively (the fake
providers refuse what the real APIs refuse), the repair call, invalid_output, and where the parsed
output appears (the invoke body, a streamed run's run.completed, the flow action, MCP, /v1)."""
import json

import pytest

from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import anthropic_text, anthropic_tools, openai_text, openai_tools
from test_mcp_server import run_client
from test_runs import follow

# Closed, all properties required: OpenAI's strict mode and Anthropic's structured outputs take it.
REFUND = {"type": "object",
          "properties": {"amount": {"type": "number", "minimum": 0, "maximum": 500},
                         "escalate": {"type": "boolean"},
                         "reason": {"type": "string", "maxLength": 60}},
          "required": ["amount", "escalate", "reason"], "additionalProperties": False}
# Open (extra properties allowed): asked without strict mode, or through the answer tool.
VERDICT = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}

ANTHROPIC_STRUCTURED = """
[[providers]]
name = "claude-so"
kind = "anthropic"
base_url = "http://127.0.0.1:{port}"
api_key_env = "FAKE_LLM_KEY"
structured_output_models = ["claude-sonnet-*"]

[prices."claude-so/claude-sonnet-4-5"]
input_per_mtok = 3000
output_per_mtok = 15000
"""


@pytest.fixture
def tenant(llm, start_server):
    llm.reset()
    config = config_for(llm) + ANTHROPIC_STRUCTURED.format(port=llm.port)
    return Tenant(start_server(config, env={"FAKE_LLM_KEY": API_KEY}))


def test_a_versions_output_schema_is_asked_natively_and_the_answer_parsed(tenant, llm):
    tenant.agent("refunds", output_schema=REFUND)
    llm.push(openai_text('{"amount": 42.5, "escalate": true, "reason": "damaged"}'))
    status, _, body = tenant.invoke("refunds", {"message": "The parcel arrived broken."})
    assert status == 200, body
    assert body["output"] == {"amount": 42.5, "escalate": True, "reason": "damaged"}
    assert body["response"] == '{"amount": 42.5, "escalate": true, "reason": "damaged"}'
    assert body["terminated_reason"] is None and body["usage"]["model_calls"] == 1
    fmt = llm.requests[-1]["body"]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    # Strict mode is sent the schema without the bounds agentgate checks itself.
    assert fmt["json_schema"]["schema"]["properties"]["amount"] == {"type": "number"}


def test_a_calls_response_format_replaces_the_versions_and_takes_openais_shape(tenant, llm):
    tenant.agent("refunds", output_schema=REFUND)
    llm.push(openai_text('{"ok": false, "note": "extra keys are allowed here"}'))
    status, _, body = tenant.invoke("refunds", {
        "message": "Is it fine?",
        "response_format": {"type": "json_schema", "json_schema": {"name": "verdict", "schema": VERDICT}}})
    assert status == 200, body
    assert body["output"] == {"ok": False, "note": "extra keys are allowed here"}
    fmt = llm.requests[-1]["body"]["response_format"]["json_schema"]
    assert fmt["strict"] is False and fmt["schema"] == VERDICT
    # Without a schema, nothing changes: no response_format, and output is null.
    tenant.agent("plain")
    llm.push(openai_text("just words"))
    status, _, body = tenant.invoke("plain", {"message": "hi"})
    assert status == 200 and body["output"] is None and body["response"] == "just words"
    assert "response_format" not in llm.requests[-1]["body"]


def test_a_bad_answer_gets_one_repair_call_priced_and_counted(tenant, llm):
    tenant.agent("refunds", output_schema=REFUND, max_iterations=1)
    llm.push(openai_text('{"amount": -5, "escalate": "yes"}', input_tokens=100, output_tokens=10),
             openai_text('{"amount": 5, "escalate": false, "reason": "fixed"}', input_tokens=150, output_tokens=10))
    status, _, body = tenant.invoke("refunds", {"message": "refund?"})
    assert status == 200, body
    assert body["terminated_reason"] is None
    assert body["output"] == {"amount": 5, "escalate": False, "reason": "fixed"}
    assert body["usage"]["model_calls"] == 2 and body["usage"]["input_tokens"] == 250
    assert body["usage"]["cost_usd"] == pytest.approx((250 * 1000 + 20 * 2000) / 1e6)
    repair = llm.requests[-1]["body"]["messages"][-1]
    assert repair["role"] == "user"
    for problem in ("$.amount: must be at least 0", "$.escalate: must be of type boolean", "$.reason: is required"):
        assert problem in repair["content"], repair["content"]


def test_an_answer_still_bad_after_its_repair_ends_invalid_output(tenant, llm):
    tenant.agent("refunds", output_schema=REFUND)
    llm.push(openai_text("I think 5 euros."), openai_text('{"amount": 5}'))
    status, _, body = tenant.invoke("refunds", {"message": "refund?", "stateful": True})
    assert status == 200, body
    assert body["terminated_reason"] == "invalid_output"
    assert body["output"] is None and body["response"] == '{"amount": 5}'
    assert len(llm.requests) == 2  # one repair, no more
    # The flow action says the same, and reads the parsed answer as JSON text when there is one.
    llm.push(openai_text("nope"), openai_text("still nope"))
    status, _, flow = tenant.server.request("POST", "/api/flow-actions/invoke-agent", {
        "agentExternalId": "refunds", "message": "refund?"},
        {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
         "fl-api-token": tenant.token})
    assert status == 200, flow
    assert flow["isComplete"] is False and flow["stoppedBecause"] == "invalid_output" and flow["outputJson"] is None


def test_the_flow_action_takes_an_output_schema_and_answers_output_json(tenant, llm):
    tenant.agent("plain")
    headers = {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
               "fl-api-token": tenant.token}
    llm.push(openai_text('{"ok": true}'))
    status, _, flow = tenant.server.request("POST", "/api/flow-actions/invoke-agent", {
        "agentExternalId": "plain", "message": "ok?", "outputSchemaJson": json.dumps(VERDICT)}, headers)
    assert status == 200, flow
    assert flow["isComplete"] is True and json.loads(flow["outputJson"]) == {"ok": True}
    status, _, fault = tenant.server.request("POST", "/api/flow-actions/invoke-agent", {
        "agentExternalId": "plain", "message": "ok?",
        "outputSchemaJson": json.dumps({"type": "object", "properties": {"a": {"$ref": "#/x"}}})}, headers)
    assert status == 400 and "outputSchemaJson.properties.a.$ref" in fault["message"], fault
    status, _, fault = tenant.server.request("POST", "/api/flow-actions/invoke-agent", {
        "agentExternalId": "plain", "message": "ok?", "outputSchemaJson": "{not json"}, headers)
    assert status == 400 and "outputSchemaJson" in fault["message"], fault


def test_a_configured_anthropic_model_is_asked_with_output_config(tenant, llm):
    tenant.agent("claude-bot", provider="claude-so", model="claude-sonnet-4-5", output_schema=REFUND)
    llm.push(anthropic_text('{"amount": 1, "escalate": false, "reason": "ok"}'))
    status, _, body = tenant.invoke("claude-bot", {"message": "refund?"})
    assert status == 200, body
    assert body["output"] == {"amount": 1, "escalate": False, "reason": "ok"}
    sent = llm.requests[-1]["body"]
    assert sent["output_config"]["format"]["type"] == "json_schema"
    assert "maximum" not in sent["output_config"]["format"]["schema"]["properties"]["amount"]
    assert not any(t["name"] == "final_answer" for t in sent.get("tools", []))


@pytest.mark.parametrize("provider,model,schema", [
    ("fake-anthropic", "claude-test", REFUND),      # not configured for structured outputs
    ("claude-so", "claude-sonnet-4-5", VERDICT)])   # configured, but the schema has no strict form
def test_otherwise_anthropic_answers_through_the_answer_tool_after_its_other_tools(tenant, llm, provider, model,
                                                                                    schema):
    tenant.agent("claude-bot", provider=provider, model=model, output_schema=schema,
                 actions=[{"name": "open_case", "description": "Open a case"}])
    answer = {"amount": 3, "escalate": True, "reason": "late"} if schema is REFUND else {"ok": True}
    llm.push(anthropic_tools([("open_case", {"subject": "late parcel"})]),
             anthropic_tools([("final_answer", answer)]))
    status, _, body = tenant.invoke("claude-bot", {"message": "refund?"})
    assert status == 200, body
    assert body["output"] == answer and body["terminated_reason"] is None
    assert body["response"].startswith(json.dumps(answer, separators=(",", ":")))
    assert ":::action" in body["response"]  # the action's block follows the answer's text
    first = llm.requests[0]["body"]
    assert "output_config" not in first and "tool_choice" not in first
    offered = {t["name"]: t for t in first["tools"]}
    assert offered["final_answer"]["input_schema"] == schema and "open_case" in offered


def test_bad_schemas_are_400_naming_the_field(tenant, llm):
    tenant.agent("plain")
    for response_format, field in [
            ({"type": "xml"}, "response_format.type"),
            ({"type": "json_schema", "schema": {"type": "object", "properties": {"a": {"$ref": "#/b"}}}},
             "response_format.schema.properties.a.$ref"),
            ({"type": "json_schema", "schema": {"type": "array"}}, "response_format.schema.type"),
            ({"type": "json_schema", "schema": {"type": "object", "properties": {"a": {"pattern": "(?=x)y"}}}},
             "response_format.schema.properties.a.pattern"),
            ({"type": "json_schema", "json_schema": {"name": "v", "strict": True, "schema": VERDICT}},
             "response_format.json_schema.strict")]:
        status, _, body = tenant.invoke("plain", {"message": "hi", "response_format": response_format})
        assert status == 400 and f"'{field}'" in error_of(body)["message"], (field, body)
    deep = {"type": "object"}
    for _ in range(12):
        deep = {"type": "object", "properties": {"a": deep}}
    status, _, body = tenant.invoke("plain", {"message": "hi", "response_format": {"type": "json_schema",
                                                                                   "schema": deep}})
    assert status == 400 and "deeper than 10" in error_of(body)["message"]
    status, _, body = tenant.server.admin("POST", f"/orgs/{tenant.org}/agents", {"id": "bad", "config": {
        "name": "bad", "model": {"provider": "fake-openai", "name": "gpt-test"},
        "output_schema": {"type": "object", "properties": {"n": {"type": "float"}}}}})
    assert status == 400 and "config.output_schema.properties.n.type" in error_of(body)["message"]
    assert llm.requests == []  # no model was called for any of them


def test_a_streamed_run_shows_only_the_answer_that_kept_to_the_schema(tenant, llm):
    tenant.agent("refunds", output_schema=REFUND)
    llm.push(openai_text('{"amount": "BAD FIRST ANSWER"}'),
             openai_text('{"amount": 9, "escalate": false, "reason": "repaired"}'))
    events = follow(tenant, "/api/agents/refunds/invoke", body={"message": "refund?"})["events"]
    types = [e["type"] for e in events]
    assert types[-1] == "run.completed", types
    shown = "".join(e["data"].get("text", "") for e in events if e["type"] == "text.delta")
    assert "BAD FIRST ANSWER" not in json.dumps(events)
    assert json.loads(shown) == {"amount": 9, "escalate": False, "reason": "repaired"}
    assert events[-1]["data"]["output"] == {"amount": 9, "escalate": False, "reason": "repaired"}


def test_a_background_run_keeps_its_response_format_and_its_result_carries_output(tenant, llm):
    tenant.agent("plain")
    llm.push(openai_text('{"ok": true}'))
    status, _, run = tenant.invoke("plain", {"message": "ok?", "background": True,
                                             "response_format": {"type": "json_schema", "schema": VERDICT}})
    assert status == 202, run
    from test_runs import wait_status
    ended = wait_status(tenant, run["run_id"], ("completed",))
    assert ended["result"]["output"] == {"ok": True}
    assert llm.requests[-1]["body"]["response_format"]["json_schema"]["schema"] == VERDICT


def test_the_offline_model_answers_a_schema_with_an_example_it_accepts(start_server):
    server = start_server()  # the embedded defaults, as make run: the demo agent on the offline model
    creds = server.demo_credentials()
    status, _, body = server.request("POST", f"/api/agents/{creds['agent']}/invoke", {
        "message": "Should this refund be escalated?",
        "response_format": {"type": "json_schema", "schema": {
            "type": "object", "properties": {"escalate": {"type": "boolean"},
                                             "reason": {"type": "string", "minLength": 3}},
            "required": ["escalate", "reason"]}}},
        {"content-type": "application/json", "fl-api-org": creds["org"], "fl-api-env": creds["env"],
         "fl-api-token": creds["token"]})
    assert status == 200, body
    assert body["terminated_reason"] is None
    assert isinstance(body["output"]["escalate"], bool) and len(body["output"]["reason"]) >= 3


@pytest.mark.parametrize("sdk", ["v1", "v2"])
def test_mcp_lists_the_output_schema_and_the_sdk_accepts_the_structured_result(tenant, llm, sdk):
    tenant.agent("refunds", output_schema=REFUND)
    llm.push(openai_text('{"amount": 2, "escalate": false, "reason": "fine"}'))
    out = run_client(tenant, sdk, [{"name": "refunds", "arguments": {"message": "refund?"}}])
    tool = out["tools"][0]
    assert tool["outputSchema"]["properties"]["output"]["anyOf"][0] == REFUND
    result = out["results"][0]
    assert "thrown" not in result, result  # the SDK checks structuredContent against outputSchema
    assert result["structuredContent"]["output"] == {"amount": 2, "escalate": False, "reason": "fine"}


def test_chat_completions_take_a_json_schema_response_format(tenant, llm):
    tenant.agent("plain")
    llm.push(openai_text('{"ok": true}'))
    status, _, body = tenant.server.request("POST", "/v1/chat/completions", {
        "model": "plain", "messages": [{"role": "user", "content": "ok?"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "verdict", "schema": VERDICT}}},
        {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
         "fl-api-token": tenant.token})
    assert status == 200, body
    assert json.loads(body["choices"][0]["message"]["content"]) == {"ok": True}
    assert body["choices"][0]["finish_reason"] == "stop"
    assert llm.requests[-1]["body"]["response_format"]["json_schema"]["schema"] == VERDICT


def huge_answer_schema():
    """415 bytes whose smallest answer is about 1 GB: a string of 1,000 in 1,000 x 1,000 x 1,000."""
    nested = {"type": "string", "minLength": 1000}
    for _ in range(3):
        nested = {"type": "array", "minItems": 1000, "items": nested}
    return {"type": "object", "properties": {"a": nested}, "required": ["a"]}


def test_a_schema_whose_smallest_answer_is_huge_is_400_on_every_way_in(start_server):
    """Issue 72, part 2: on the embedded defaults (the offline model answers with an example), no
    way in takes a schema that forces an answer over 64 KiB; the server stays quick."""
    server = start_server()
    creds = server.demo_credentials()
    h = {"content-type": "application/json", "fl-api-org": creds["org"], "fl-api-env": creds["env"],
         "fl-api-token": creds["token"]}
    schema = huge_answer_schema()
    agent = creds["agent"]
    status, _, body = server.request("POST", f"/api/agents/{agent}/invoke", {
        "message": "hi", "response_format": {"type": "json_schema", "schema": schema}}, h, timeout=10)
    assert status == 400 and "'response_format.schema'" in error_of(body)["message"], body
    assert "65536 bytes" in error_of(body)["message"], body
    status, _, fault = server.request("POST", "/api/flow-actions/invoke-agent", {
        "agentExternalId": agent, "message": "hi", "outputSchemaJson": json.dumps(schema)}, h, timeout=10)
    assert status == 400 and "outputSchemaJson" in fault["message"], fault
    status, _, body = server.request("POST", "/v1/chat/completions", {
        "model": agent, "messages": [{"role": "user", "content": "hi"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "huge", "schema": schema}}}, h, timeout=10)
    assert status == 400 and body["error"]["param"] == "response_format.json_schema.schema", body
    status, _, body = server.request("POST", "/v1/responses", {
        "model": agent, "input": "hi",
        "text": {"format": {"type": "json_schema", "name": "huge", "schema": schema}}}, h, timeout=10)
    assert status == 400 and body["error"]["param"] == "text.format.schema", body
    status, _, body = server.admin("POST", f"/orgs/{creds['org']}/agents", {"id": "huge", "config": {
        "name": "huge", "model": {"provider": "offline", "name": "offline"}, "output_schema": schema}})
    assert status == 400 and "'config.output_schema'" in error_of(body)["message"], body
    # The same lengths on an optional property are fine: the example leaves it out.
    optional = {**schema, "required": []}
    status, _, body = server.request("POST", f"/api/agents/{agent}/invoke", {
        "message": "hi", "response_format": {"type": "json_schema", "schema": optional}}, h, timeout=10)
    assert status == 200 and body["output"] is not None and len(json.dumps(body)) < 70000, body
