"""The OpenAI-compatible API (docs/openai.md, issue 58), through the binary, spoken
to by the official `openai` SDK (tests/counterparts, pinned) given nothing but a base URL and an API
key, its retries at their defaults: a chat with history, the models a key may use, refusals as the
SDK's own error classes, and the statuses that must not be paid for three times not retried."""
import json

import counterparts
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text


def start(start_server, llm, server_extra=""):
    server = start_server(config_for(llm, server_extra), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("bot")
    return tenant


def two_servers(start_server, llm):
    """Two servers on one store (PostgreSQL), the tenant made on the first with its agent "bot":
    (the tenant on the first, the same tenant on the second, its key)."""
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY,
                                                "AGENTGATE_STORE_URL": first.store_url})
    tenant = Tenant(first)
    tenant.agent("bot")
    return tenant, tenant.via(second), new_key(tenant)


def new_key(tenant, agents=("bot",), permissions=("chat",)):
    """A new token of the tenant's organization, granted `permissions` on `agents`: its prod key."""
    status, _, tok = tenant.server.admin("POST", f"/orgs/{tenant.org}/tokens", {"name": "sdk"})
    assert status == 201, tok
    for agent in agents:
        tenant.server.admin("PUT", f"/orgs/{tenant.org}/grants",
                            {"token_id": tok["id"], "agent_id": agent, "permissions": list(permissions)})
    assert set(tok["api_keys"]) == {"prod"}, tok
    key = tok["api_keys"]["prod"]
    assert key == f"agk_{tenant.org}.prod.{tok['token']}"
    return key


def sdk(tenant, key, call, **args):
    return counterparts.run_script(
        "openai_client.mjs",
        ["--base", f"http://{tenant.server.host}:{tenant.server.port}", "--key", key, "--call", call], args)


def test_an_sdk_with_a_base_url_and_a_key_chats_with_an_agent_and_its_history(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("It ships today.", input_tokens=40, output_tokens=6))
    messages = [{"role": "system", "content": "Answer in one line."},
                {"role": "user", "content": "Hi, I ordered A-1."},
                {"role": "assistant", "content": "Thanks, noted."},
                {"role": "user", "content": "When does it ship?"}]
    out = sdk(tenant, key, "chat", model="bot", messages=messages)
    assert out["requests"] == 1, out
    completion = out["result"]
    assert completion["object"] == "chat.completion" and completion["model"] == "bot"
    choice = completion["choices"][0]
    assert choice["message"] == {"role": "assistant", "content": "It ships today.", "refusal": None}
    assert choice["finish_reason"] == "stop"
    assert completion["usage"] == {"prompt_tokens": 40, "completion_tokens": 6, "total_tokens": 46}
    assert completion["agentgate"]["terminated_reason"] is None
    assert completion["agentgate"]["conversation_id"] is None
    # The model saw the earlier messages as real turns, the system message as instructions.
    sent = llm.requests[-1]["body"]["messages"]
    assert [(m["role"], m["content"]) for m in sent[1:]] == [
        ("user", "Hi, I ordered A-1."), ("assistant", "Thanks, noted."), ("user", "When does it ship?")]
    assert "Answer in one line." in sent[0]["content"]
    # Stateless: no conversation was stored.
    _, _, listed = tenant.server.admin("GET", f"/orgs/{tenant.org}/conversations")
    assert listed["conversations"] == [], listed


def test_models_are_the_agents_the_key_may_chat_with(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("other")
    key = new_key(tenant, agents=("bot",))
    out = sdk(tenant, key, "models")
    assert [(m["id"], m["object"], m["owned_by"]) for m in out["result"]] == [("bot", "model", tenant.org)]
    assert out["result"][0]["created"] > 1_700_000_000


def test_refusals_are_the_sdks_error_classes_naming_openais_param(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    user = [{"role": "user", "content": "hi"}]
    refused = sdk(tenant, new_key(tenant, permissions=()), "chat", model="bot", messages=user)["error"]
    assert refused["status"] == 403 and refused["class"] == "PermissionDeniedError", refused
    assert refused["type"] == "permission_error" and refused["code"] == "forbidden"
    missing = sdk(tenant, key, "chat", model="nobody", messages=user)["error"]
    assert missing["status"] == 404 and missing["class"] == "NotFoundError", missing
    bad = sdk(tenant, key, "chat", model="bot", messages=[{"role": "tool", "content": "x"}])["error"]
    assert bad["status"] == 400 and bad["class"] == "BadRequestError", bad
    assert bad["param"] == "messages[0].tool_call_id" and bad["type"] == "invalid_request_error", bad
    wrong = sdk(tenant, "agk_" + tenant.org + ".prod.agt_0000000000000000." + "x" * 43, "models")["error"]
    assert wrong["status"] == 401 and wrong["class"] == "AuthenticationError", wrong
    unreadable = sdk(tenant, "sk-not-ours", "models")["error"]
    assert unreadable["status"] == 401 and "agk_" in unreadable["message"], unreadable
    assert len(llm.requests) == 0  # no refusal reached the model


def test_a_spend_limit_and_the_turn_cap_are_answered_once_not_retried(start_server, llm):
    tenant = start(start_server, llm, "answer_early_seconds = 1\nturn_timeout_seconds = 2")
    key = new_key(tenant)
    user = [{"role": "user", "content": "hi"}]
    # The SDK retries a 504 twice by default: x-should-retry says not to, so one turn ran.
    llm.push(dict(openai_text("too late"), delay=30))
    capped = sdk(tenant, key, "chat", model="bot", messages=user)
    assert capped["error"]["status"] == 504 and capped["error"]["code"] == "turn_timeout", capped
    assert capped["error"]["should_retry"] == "false" and capped["requests"] == 1, capped
    assert len(llm.requests) == 1
    tenant.server.admin("PATCH", f"/orgs/{tenant.org}", {"monthly_spend_limit_usd": 0})
    limited = sdk(tenant, key, "chat", model="bot", messages=user)
    assert limited["error"]["status"] == 402 and limited["error"]["code"] == "spend_limit_reached"
    assert limited["error"]["should_retry"] == "false" and limited["requests"] == 1, limited
    assert len(llm.requests) == 1


def test_the_same_key_follows_and_reads_runs_and_the_fl_api_headers_still_work(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_text("Background answer."))
    status, _, queued = tenant.invoke("bot", {"message": "later", "background": True},
                                      headers={"fl-api-org": "", "fl-api-token": "", "fl-api-env": "",
                                               "authorization": f"Bearer {key}"})
    # Empty fl-api headers are headers: the Bearer key is read only without them.
    assert status == 401, queued
    h = {"content-type": "application/json", "authorization": f"Bearer {key}"}
    status, _, queued = tenant.server.request("POST", "/api/agents/bot/invoke",
                                              {"message": "later", "background": True}, h)
    assert status == 202, queued
    status, _, run = tenant.server.request("GET", f"/api/runs/{queued['run_id']}", headers=h)
    assert status == 200 and run["run_id"] == queued["run_id"], run
    llm.push(openai_text("By headers."))
    status, _, body = tenant.server.request(
        "POST", "/v1/chat/completions", {"model": "bot", "messages": [{"role": "user", "content": "hi"}]},
        {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
         "fl-api-token": tenant.token})
    assert status == 200 and body["choices"][0]["message"]["content"], body


def content_of(chunks):
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])


def test_a_streamed_chat_completion_is_chunks_ending_with_its_finish_reason_and_usage(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(dict(openai_text("It ships today, by courier.", input_tokens=30, output_tokens=7), piece=4))
    out = sdk(tenant, key, "stream", model="bot", messages=[{"role": "user", "content": "When?"}])
    chunks = out["result"]["chunks"]
    assert "error" not in out["result"], out
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == "bot" for c in chunks)
    assert len({c["id"] for c in chunks}) == 1 and chunks[0]["id"].startswith("chatcmpl-run_")
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert content_of(chunks) == "It ships today, by courier."
    with_text = [c for c in chunks if c["choices"] and c["choices"][0]["delta"].get("content")]
    assert len(with_text) >= 1
    finish = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert [c["choices"][0]["finish_reason"] for c in finish] == ["stop"]
    assert finish[0]["agentgate"]["terminated_reason"] is None
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"] == {
        "prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37}
    # The run is the streamed run /api has: its id is in the chunks' id.
    run_id = chunks[0]["id"][len("chatcmpl-"):]
    status, _, run = tenant.server.request("GET", f"/api/runs/{run_id}",
                                           headers={"authorization": f"Bearer {key}"})
    assert status == 200 and run["status"] == "completed", run
    assert run["result"]["response"] == "It ships today, by courier."


def test_a_streamed_chat_completion_at_the_turn_cap_ends_with_an_error_the_sdk_raises(start_server, llm):
    tenant = start(start_server, llm, "answer_early_seconds = 1\nturn_timeout_seconds = 2")
    key = new_key(tenant)
    llm.push(dict(openai_text("too late"), delay=30))
    out = sdk(tenant, key, "stream", model="bot", messages=[{"role": "user", "content": "hi"}])
    assert out["result"]["error"]["code"] == "turn_timeout", out
    assert content_of(out["result"]["chunks"]) == ""
    assert out["requests"] == 1


def test_blocked_text_never_reaches_a_chunk_and_the_placeholder_is_content_filter(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("guarded", safety={"block_patterns": ["(?i)internal only"], "placeholder": "Withheld."})
    key = new_key(tenant, agents=("guarded",))
    llm.push(dict(openai_text("The plan is INTERNAL ONLY, do not share it with anyone outside."), piece=3))
    out = sdk(tenant, key, "stream", model="guarded", messages=[{"role": "user", "content": "plan?"}])
    chunks = out["result"]["chunks"]
    assert "INTERNAL" not in json.dumps(chunks).upper(), chunks
    assert content_of(chunks) == "Withheld."
    finish = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert finish == ["content_filter"]
    llm.push(openai_text("Still INTERNAL ONLY."))
    plain = sdk(tenant, key, "chat", model="guarded", messages=[{"role": "user", "content": "plan?"}])["result"]
    assert plain["choices"][0]["message"]["content"] == "Withheld."
    assert plain["choices"][0]["finish_reason"] == "content_filter" and plain["agentgate"]["blocked"] is True
