"""The clients users already run, on their own default paths (issue 74), each against the binary
with the fake provider behind it: the Vercel AI SDK, the OpenAI Agents SDK and LangChain, pinned
(tests/counterparts/clients.mjs, run on the Node 22 the counterparts install)."""
import json
import subprocess

import counterparts
from daemon_harness import Tenant, config_for
from fakes.fake_llm import openai_text
from test_openai_api import new_key
from test_sdk_schemas import TICKET

HISTORY = [("user", "Hi, I ordered A-1."), ("assistant", "Noted: order A-1."), ("user", "When does it ship?")]


def start(start_server, llm):
    llm.reset()
    tenant = Tenant(start_server(config_for(llm)))
    tenant.agent("desk")
    return tenant, new_key(tenant, agents=("desk",))


def client(tenant, key, call, **args):
    command = [counterparts.node22(), "clients.mjs", "--base", f"http://{tenant.server.host}:{tenant.server.port}",
               "--key", key, "--model", "desk", "--call", call]
    for name, value in args.items():
        command += [f"--{name}", value]
    out = subprocess.run(command, cwd=counterparts.counterparts_dir(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout.strip().splitlines()[-1])
    assert "result" in answer, answer
    return answer["result"]


def sent_messages(llm):
    return [(m["role"], m["content"]) for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]


def conversations(tenant):
    _, _, listed = tenant.server.admin("GET", f"/orgs/{tenant.org}/conversations")
    return [c["id"] for c in listed["conversations"]]


def test_the_ai_sdks_structured_output_helpers_get_their_object(start_server, llm):
    tenant, key = start(start_server, llm)
    for call in ("ai-generate-object", "ai-output-object", "ai-compatible-object"):
        llm.push(openai_text(json.dumps(TICKET)))
        assert client(tenant, key, call)["object"] == TICKET, call
    # The compatible provider asks for JSON mode; the OpenAI one for the schema.
    assert llm.requests[-1]["body"]["response_format"]["type"] == "json_object"
    assert llm.requests[-2]["body"]["response_format"]["type"] == "json_schema"


def test_the_ai_sdks_chat_resends_its_history_and_the_conversation_grows_once(start_server, llm):
    tenant, key = start(start_server, llm)
    llm.push(openai_text("Noted: order A-1."), openai_text("It ships today."))
    out = client(tenant, key, "ai-history")
    assert out == {"first": "Noted: order A-1.", "second": "It ships today."}, out
    assert sent_messages(llm) == HISTORY
    assert len(conversations(tenant)) == 1  # the second message continued the first's
    llm.push(openai_text("Noted: order A-1."), openai_text("It ships today."))
    out = client(tenant, key, "ai-compatible-history")  # chat completions: stateless
    assert out["second"] == "It ships today." and sent_messages(llm) == HISTORY


def test_the_agents_sdks_output_type_session_and_history_work(start_server, llm):
    tenant, key = start(start_server, llm)
    llm.push(openai_text(json.dumps(TICKET)))
    assert client(tenant, key, "agents-output-type")["object"] == TICKET
    assert llm.requests[-1]["body"]["response_format"]["json_schema"]["strict"] is True
    for call in ("agents-memory-session", "agents-history"):
        llm.push(openai_text("Noted: order A-1."), openai_text("It ships today."))
        out = client(tenant, key, call)
        assert out == {"first": "Noted: order A-1.", "second": "It ships today."}, (call, out)
        assert sent_messages(llm) == HISTORY, call


def test_the_agents_sdks_conversations_session_and_conversation_id_keep_one_conversation(
        start_server, llm):
    tenant, key = start(start_server, llm)
    llm.push(openai_text("Noted: order A-1."), openai_text("It ships today."))
    out = client(tenant, key, "agents-conversations-session")
    assert out["first"] == "Noted: order A-1." and out["second"] == "It ships today.", out
    assert sent_messages(llm) == HISTORY
    # The session's conversation holds the two turns once each.
    assert out["items"] == [list(m) for m in HISTORY] + [["assistant", "It ships today."]], out
    assert out["conversation"] in conversations(tenant)

    llm.push(openai_text("Noted: order A-1."), openai_text("It ships today."))
    out = client(tenant, key, "agents-conversation-id")
    assert out["second"] == "It ships today." and sent_messages(llm) == HISTORY, out
    status, _, listed = tenant.server.request("GET", f"/v1/conversations/{out['conversation']}/items?order=asc",
                                              None, {"authorization": f"Bearer {key}"})
    assert status == 200, listed
    assert [(i["role"], i["content"][0]["text"]) for i in listed["data"]] == HISTORY + [
        ("assistant", "It ships today.")]


def test_langchains_structured_output_json_mode_and_responses_history_work(start_server, llm):
    tenant, key = start(start_server, llm)
    for method in (None, "jsonSchema"):
        llm.push(openai_text(json.dumps(TICKET)))
        args = {"method": method} if method else {}
        assert client(tenant, key, "langchain-structured", **args)["object"] == TICKET, method
    llm.push(openai_text('{"ok": true}'))
    assert client(tenant, key, "langchain-json-mode")["object"] == {"ok": True}
    assert llm.requests[-1]["body"]["response_format"] == {"type": "json_object"}
    llm.push(openai_text("Noted: order A-1."), openai_text("It ships today."))
    out = client(tenant, key, "langchain-responses-history")
    assert out == {"first": "Noted: order A-1.", "second": "It ships today."}, out
    assert sent_messages(llm) == HISTORY
