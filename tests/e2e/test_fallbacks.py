"""Fallbacks, key pools, circuit breakers and prompt-cache prices (docs/daemon.md "Fallbacks and key
pools", "Prompt caching"), through the binary against two fake providers."""
import os
import re
import subprocess
import time

import pytest

from conftest import error_of
from daemon_harness import FakeToolServer, Tenant
from fakes.fake_llm import FakeLlm, anthropic_error, anthropic_text, openai_error, openai_text, openai_tools

KEYS = {"PRIMARY_KEY": "sk-primary-0123456789", "POOL_KEY_1": "sk-pool-one-0123456789",
        "POOL_KEY_2": "sk-pool-two-0123456789", "BACKUP_KEY": "sk-backup-0123456789"}


def fallback_config(primary, backup, breaker_failures=5, breaker_cooldown_seconds=30):
    """`primary` serves an Anthropic provider ("claude", one key) and an OpenAI one with a pool of
    two keys ("pool"); `backup` an OpenAI provider ("backup")."""
    return f"""
[[providers]]
name = "claude"
kind = "anthropic"
base_url = "http://127.0.0.1:{primary.port}"
api_key_env = "PRIMARY_KEY"
breaker_failures = {breaker_failures}
breaker_cooldown_seconds = {breaker_cooldown_seconds}

[[providers]]
name = "pool"
kind = "openai"
base_url = "http://127.0.0.1:{primary.port}/v1"
api_key_envs = ["POOL_KEY_1", "POOL_KEY_2"]

[[providers]]
name = "backup"
kind = "openai"
base_url = "http://127.0.0.1:{backup.port}/v1"
api_key_env = "BACKUP_KEY"

[prices."claude/sonnet"]
input_per_mtok = 1000
output_per_mtok = 2000

[prices."pool/gpt"]
input_per_mtok = 1000
output_per_mtok = 2000

[prices."backup/big"]
input_per_mtok = 3000
output_per_mtok = 15000
"""


@pytest.fixture
def backup():
    fake = FakeLlm()
    yield fake
    fake.close()


@pytest.fixture
def start(llm, backup, start_server):
    def started(**breaker):
        server = start_server(fallback_config(llm, backup, **breaker), env=KEYS)
        return Tenant(server)
    return started


def agent_with_fallback(tenant, agent_id="bot", **config):
    return tenant.agent(agent_id, provider="claude", model="sonnet",
                        model_settings={"fallbacks": [{"provider": "backup", "name": "big"}]}, **config)


def model_entry(body, provider):
    return next(m for m in body["usage"]["models"] if m["provider"] == provider)


def test_a_529_on_the_primary_falls_back_and_the_reply_says_which_model_answered(start, llm, backup):
    tenant = start()
    agent_with_fallback(tenant)
    llm.push(anthropic_error(529, "overloaded_error", "Overloaded"))
    backup.push(openai_text("from the backup", input_tokens=100, output_tokens=10))
    status, headers, body = tenant.invoke("bot", {"message": "hi"})
    assert status == 200, body
    assert body["response"] == "from the backup" and body["terminated_reason"] is None
    assert body["usage"]["models"] == [
        {"provider": "claude", "model": "sonnet", "calls": 0, "failed_calls": 1, "input_tokens": 0,
         "cached_input_tokens": 0, "cache_write_tokens": 0, "output_tokens": 0, "cost_usd": 0},
        {"provider": "backup", "model": "big", "calls": 1, "failed_calls": 0, "input_tokens": 100,
         "cached_input_tokens": 0, "cache_write_tokens": 0, "output_tokens": 10,
         "cost_usd": pytest.approx(100 * 3000 / 1e6 + 10 * 15000 / 1e6)}]
    assert body["usage"]["cost_usd"] == pytest.approx(0.45)
    # One call each: a 529 with a fallback left is not retried on the same model.
    assert len(llm.requests) == 1 and len(backup.requests) == 1
    sent = backup.requests[0]
    assert sent["body"]["model"] == "big" and sent["headers"]["authorization"] == "Bearer sk-backup-0123456789"
    assert sent["body"]["messages"][-1] == {"role": "user", "content": "hi"}
    # The transcript names the model of every call.
    _, _, turn = tenant.server.admin("GET", f"/orgs/acme/turns/{headers['x-agentgate-turn-id']}")
    calls = turn["transcript"]["model_calls"]
    assert [(c["provider"], c["model"]) for c in calls] == [("claude", "sonnet"), ("backup", "big")]
    assert "529" in calls[0]["failure"] and calls[1]["input_tokens"] == 100
    metrics = tenant.server.request("GET", "/metrics")[2]
    assert 'agentgate_model_fallbacks_total{from_provider="claude",to_provider="backup"} 1' in metrics


def test_a_fallback_after_a_tool_call_goes_on_with_the_same_history_and_does_not_repeat_the_tool(
        start, llm, backup):
    tools = FakeToolServer()
    try:
        tenant = start()
        agent_with_fallback(tenant, tools=[{
            "type": "http", "name": "track_order", "description": "Track an order",
            "parameters": {"type": "object", "properties": {"order": {"type": "string"}}},
            "url": f"http://127.0.0.1:{tools.port}/track", "method": "POST"}])
        llm.push({"status": 200, "json": {
            "id": "msg_t", "type": "message", "role": "assistant", "model": "sonnet", "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "track_order", "input": {"order": "A-1"}}],
            "usage": {"input_tokens": 20, "output_tokens": 5}}},
            anthropic_error(503, "api_error", "upstream down"))
        backup.push(openai_text("Your order ships in 2 days.", input_tokens=50, output_tokens=8))
        status, _, body = tenant.invoke("bot", {"message": "where is A-1?"})
        assert status == 200, body
        assert body["response"] == "Your order ships in 2 days."
        assert len(tools.calls) == 1  # run once, before the fallback; never again
        sent = backup.requests[0]["body"]["messages"]
        assert sent[-2]["tool_calls"][0]["function"]["name"] == "track_order"
        assert sent[-1]["role"] == "tool" and "shipped" in sent[-1]["content"]
        assert model_entry(body, "claude")["calls"] == 1 and model_entry(body, "claude")["failed_calls"] == 1
        assert model_entry(body, "backup")["calls"] == 1
    finally:
        tools.close()


def test_a_key_under_429_is_passed_over_and_used_again_once_its_wait_is_over(start, llm, backup):
    tenant = start()
    tenant.agent("pooled", provider="pool", model="gpt")
    llm.push(openai_error(429, "rate_limit_exceeded", headers={"retry-after": "2"}))
    status, _, body = tenant.invoke("pooled", {"message": "one"})
    assert status == 200, body
    keys = [r["headers"]["authorization"] for r in llm.requests]
    assert keys == ["Bearer sk-pool-one-0123456789", "Bearer sk-pool-two-0123456789"]
    # While key one cools down, every call uses key two.
    for n in range(3):
        assert tenant.invoke("pooled", {"message": f"again {n}"})[0] == 200
    assert {r["headers"]["authorization"] for r in llm.requests[2:]} == {"Bearer sk-pool-two-0123456789"}
    time.sleep(2.1)
    used = len(llm.requests)
    for n in range(2):
        assert tenant.invoke("pooled", {"message": f"later {n}"})[0] == 200
    assert "Bearer sk-pool-one-0123456789" in {r["headers"]["authorization"] for r in llm.requests[used:]}
    metrics = tenant.server.request("GET", "/metrics")[2]
    assert 'agentgate_model_key_state{provider="pool",key="0"} 0' in metrics
    assert 'agentgate_model_key_cooldowns_total{provider="pool",key="0"} 1' in metrics


def test_a_refused_key_moves_to_the_next_key_and_a_bad_request_does_not_fall_back(start, llm, backup):
    tenant = start()
    tenant.agent("pooled", provider="pool", model="gpt",
                 model_settings={"fallbacks": [{"provider": "backup", "name": "big"}]})
    llm.push(openai_error(401, "invalid_api_key"), openai_text("second key works"))
    status, _, body = tenant.invoke("pooled", {"message": "hi"})
    assert status == 200 and body["response"] == "second key works", body
    assert len(backup.requests) == 0
    # 400: the same request would fail on every key and model.
    llm.push(openai_error(400, "context_length_exceeded"))
    status, _, body = tenant.invoke("pooled", {"message": "too long"})
    assert status == 200 and body["terminated_reason"] == "llm_error", body
    assert len(backup.requests) == 0


def test_an_expensive_fallback_is_reserved_at_its_own_price_and_the_org_limit_holds(start, llm, backup):
    tenant = start()
    agent_with_fallback(tenant)
    tenant.server.admin("PATCH", "/orgs/acme", {"monthly_spend_limit_usd": 0.4})
    llm.push(anthropic_error(529, "overloaded_error"))
    backup.push(openai_text("pricey", input_tokens=100, output_tokens=10))  # $0.45 at backup's price
    status, _, body = tenant.invoke("bot", {"message": "x"})
    assert status == 200 and body["usage"]["cost_usd"] == pytest.approx(0.45), body
    # The backup's call was reserved at its own worst case ($15 per 1,000 output tokens), not the
    # primary's ($2): the reservations total more than the primary's price could reserve.
    metrics = tenant.server.request("GET", "/metrics")[2]
    reserved = float(re.search(r"^agentgate_spend_reserved_usd_total (\S+)$", metrics, re.M).group(1))
    assert reserved > 1024 * 15000 / 1e6
    # The limit is met: the next turn cannot reserve even its primary's first call.
    llm.push(anthropic_error(529, "overloaded_error"))
    status, _, body = tenant.invoke("bot", {"message": "x"})
    assert status == 402, body
    err = error_of(body)
    assert err["code"] == "spend_limit_reached" and err["spent_usd"] == pytest.approx(0.45)
    usage = tenant.settled_usage()
    assert usage["total_spent_usd"] == pytest.approx(0.45)  # settled: what the backup's answer cost
    assert len(backup.requests) == 1


def test_the_breaker_opens_after_failures_in_a_row_and_a_probe_closes_it(start, llm, backup):
    tenant = start(breaker_failures=2, breaker_cooldown_seconds=1)
    agent_with_fallback(tenant)
    for n in range(2):
        llm.push(anthropic_error(503, "api_error"))
        status, _, body = tenant.invoke("bot", {"message": f"fail {n}"})
        assert status == 200 and body["usage"]["models"][-1]["provider"] == "backup", body
    metrics = tenant.server.request("GET", "/metrics")[2]
    assert 'agentgate_model_key_state{provider="claude",key="0"} 1' in metrics
    assert 'agentgate_model_key_breaker_opened_total{provider="claude",key="0"} 1' in metrics
    # Open: the primary is passed over without a call.
    calls = len(llm.requests)
    status, _, body = tenant.invoke("bot", {"message": "skipped"})
    assert status == 200 and [m["provider"] for m in body["usage"]["models"]] == ["backup"], body
    assert len(llm.requests) == calls
    # After the cool-down one call probes it; its answer closes the breaker.
    time.sleep(1.1)
    status, _, body = tenant.invoke("bot", {"message": "probe"})
    assert status == 200 and body["response"] == "echo: probe", body
    assert [m["provider"] for m in body["usage"]["models"]] == ["claude"]
    metrics = tenant.server.request("GET", "/metrics")[2]
    assert 'agentgate_model_key_state{provider="claude",key="0"} 0' in metrics


def test_a_fallback_naming_an_unknown_provider_or_an_unpriced_model_is_refused(start):
    tenant = start()
    for fallback, field in [({"provider": "nowhere", "name": "x"}, "config.model.fallbacks[0].provider"),
                            ({"provider": "backup", "name": "unpriced"}, "config.model.fallbacks[0].name")]:
        status, _, body = tenant.server.admin("POST", "/orgs/acme/agents", {"id": "bad", "config": {
            "name": "bad", "instructions": "x",
            "model": {"provider": "claude", "name": "sonnet", "fallbacks": [fallback]}}})
        assert status == 400, body
        assert field in error_of(body)["message"]


def test_a_sealed_key_joins_the_pool_and_bad_keys_stop_the_start_naming_the_setting(
        llm, backup, start_server, tmp_path):
    from conftest import BINARY, MASTER_KEY
    env = {"AGENTGATE_MASTER_KEY": MASTER_KEY, "PATH": os.environ["PATH"]}
    sealed = subprocess.run([BINARY, "seal", "provider.api_key"], input="sk-sealed-0123456789\n",
                            capture_output=True, text=True, timeout=10, env=env)
    assert sealed.returncode == 0, sealed.stderr
    value = sealed.stdout.strip()
    assert "sk-sealed" not in value
    config = fallback_config(llm, backup).replace(
        'api_key_env = "BACKUP_KEY"', f'api_keys_sealed = ["{value}"]')
    tenant = Tenant(start_server(config, env=KEYS))
    tenant.agent("b", provider="backup", model="big")
    assert tenant.invoke("b", {"message": "hi"})[0] == 200
    assert backup.requests[-1]["headers"]["authorization"] == "Bearer sk-sealed-0123456789"

    # A pool naming an unset variable, or a sealed key that does not open, stops the start.
    path = tmp_path / "bad.toml"
    run_env = {"PATH": os.environ["PATH"], "AGENTGATE_MASTER_KEY": MASTER_KEY,
               "AGENTGATE_SERVER_LISTEN": "127.0.0.1:0", "POOL_KEY_1": KEYS["POOL_KEY_1"]}
    for toml, named in [(fallback_config(llm, backup), "providers[1].api_key_envs[1]"),
                        (config.replace(value, "c2VhbGVk"), "providers[2].api_keys_sealed[0]")]:
        path.write_text(toml)
        if "sealed" in named:
            run_env["POOL_KEY_2"] = KEYS["POOL_KEY_2"]
        proc = subprocess.run([BINARY, "serve", "--config", str(path)], capture_output=True, text=True,
                              timeout=10, env=run_env)
        assert proc.returncode != 0 and named in proc.stderr, proc.stderr
        assert "sk-pool-one" not in proc.stderr
