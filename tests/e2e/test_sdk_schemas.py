"""Schemas as the clients' own helpers write them (issue 74, docs/structured-output.md), through
the official `openai` SDK: `chat.completions.parse` with `zodResponseFormat`, `responses.parse`
with `zodTextFormat`, and a Pydantic v2 model as openai-python's `.parse()` sends it. The fake
provider refuses in strict mode what OpenAI refuses; agentgate validates what it leaves out."""
import json

from daemon_harness import Tenant, config_for
from fakes.fake_llm import openai_text
from test_openai_api import new_key, sdk

TICKET = {"contact": {"email": "ana@example.com", "name": "Ana"}, "priority": "high", "tags": ["billing"]}

# openai-python's .parse(response_format=Ticket) for pydantic models Contact, Priority and Ticket.
PYDANTIC_TICKET = {
    "$defs": {
        "Contact": {"properties": {"email": {"format": "email", "title": "Email", "type": "string"},
                                   "name": {"title": "Name", "type": "string"}},
                    "required": ["email", "name"], "title": "Contact", "type": "object",
                    "additionalProperties": False},
        "Priority": {"enum": ["low", "high"], "title": "Priority", "type": "string"},
    },
    "properties": {"contact": {"$ref": "#/$defs/Contact"},
                   "priority": {"$ref": "#/$defs/Priority", "default": "low"},
                   "tags": {"items": {"type": "string"}, "title": "Tags", "type": "array"}},
    "required": ["contact", "priority", "tags"], "title": "Ticket", "type": "object",
    "additionalProperties": False,
}


def start(start_server, llm):
    llm.reset()
    tenant = Tenant(start_server(config_for(llm)))
    tenant.agent("desk")
    return tenant, new_key(tenant, agents=("desk",))


def sent_schema(llm):
    named = llm.requests[-1]["body"]["response_format"]["json_schema"]
    return named["strict"], named["schema"]


def test_chat_completions_parse_with_a_zod_model_gets_its_parsed_object(start_server, llm):
    tenant, key = start(start_server, llm)
    llm.push(openai_text(json.dumps(TICKET)))
    out = sdk(tenant, key, "parse-chat", model="desk", messages=[{"role": "user", "content": "file it"}])
    assert "result" in out, out
    assert out["result"]["parsed"] == TICKET
    strict, schema = sent_schema(llm)
    assert strict is True and "$schema" not in json.dumps(schema)


def test_responses_parse_with_a_zod_model_gets_its_parsed_object(start_server, llm):
    tenant, key = start(start_server, llm)
    llm.push(openai_text(json.dumps(TICKET)))
    out = sdk(tenant, key, "parse-response", model="desk", input="file it")
    assert "result" in out, out
    assert out["result"]["parsed"] == TICKET
    assert sent_schema(llm)[0] is True


def test_a_pydantic_model_is_sent_strict_and_its_format_is_held_by_a_repair(start_server, llm):
    tenant, key = start(start_server, llm)
    bad = dict(TICKET, contact={"email": "not an address", "name": "Ana"})
    llm.push(openai_text(json.dumps(bad)), openai_text(json.dumps(TICKET)))
    out = sdk(tenant, key, "chat", model="desk", messages=[{"role": "user", "content": "file it"}],
              response_format={"type": "json_schema",
                               "json_schema": {"name": "Ticket", "schema": PYDANTIC_TICKET, "strict": True}})
    assert "result" in out, out
    assert json.loads(out["result"]["choices"][0]["message"]["content"]) == TICKET
    assert len(llm.requests) == 2  # the email's format was checked here, and repaired once
    strict, schema = sent_schema(llm)
    assert strict is True
    text = json.dumps(schema)
    assert '"default"' not in text and '"format"' not in text and "#/$defs/Contact" in text


def test_an_unrouted_v1_path_answers_in_openais_error_shape(start_server, llm):
    tenant, key = start(start_server, llm)
    missing = sdk(tenant, key, "get", path="/no-such-thing")["error"]
    assert missing["status"] == 404 and missing["class"] == "NotFoundError", missing
    assert missing["type"] == "invalid_request_error", missing
    status, _, body = tenant.server.request("DELETE", "/v1/models")
    assert status == 405 and body["error"]["type"] == "invalid_request_error", body


def test_json_mode_is_one_json_object_asked_natively_and_repaired(start_server, llm):
    """`response_format: {"type": "json_object"}` (issue 74 §2), as @ai-sdk/openai-compatible's
    generateObject and LangChain's jsonMode send it, on chat completions, the Responses API and
    /api: asked as OpenAI's JSON mode, and a reply that is not one object gets its repair."""
    tenant, key = start(start_server, llm)
    llm.push(openai_text('{"ok": true}'))
    out = sdk(tenant, key, "chat", model="desk", messages=[{"role": "user", "content": "is it fine?"}],
              response_format={"type": "json_object"})
    assert "result" in out, out
    assert json.loads(out["result"]["choices"][0]["message"]["content"]) == {"ok": True}
    sent = llm.requests[-1]["body"]
    assert sent["response_format"] == {"type": "json_object"}
    assert "json" in json.dumps(sent["messages"]).lower()

    llm.push(openai_text("Sure! It is fine."), openai_text('{"fine": true}'))
    out = sdk(tenant, key, "response", model="desk", input="is it fine?", text={"format": {"type": "json_object"}})
    assert "result" in out, out
    assert json.loads(out["result"]["output_text"]) == {"fine": True}
    assert llm.requests[-1]["body"]["response_format"] == {"type": "json_object"}

    llm.push(openai_text('["not", "an", "object"]'), openai_text('{"n": 1}'))
    status, _, body = tenant.invoke("desk", {"message": "count", "response_format": {"type": "json_object"}})
    assert status == 200 and body["output"] == {"n": 1}, body
