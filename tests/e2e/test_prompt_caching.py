"""Prompt caching (docs/daemon.md "Prompt caching"): Anthropic breakpoints on the stable prefix, cached
and cache-written tokens read from both wire formats and charged at their own prices, to the cent,
against a fake provider that caches the way the real APIs report it."""
import pytest

from daemon_harness import API_KEY, Tenant

PRICES = {"claude-cached": (3.0, 15.0, 0.30, 3.75), "gpt-cached": (2.5, 10.0, 1.25, None)}
INSTRUCTIONS = "You answer questions about the Acme order policy. " * 120  # ~1,500 tokens


def config_for(llm):
    return f"""
[[providers]]
name = "anthropic"
kind = "anthropic"
base_url = "http://127.0.0.1:{llm.port}"
api_key_env = "FAKE_LLM_KEY"

[[providers]]
name = "openai"
kind = "openai"
base_url = "http://127.0.0.1:{llm.port}/v1"
api_key_env = "FAKE_LLM_KEY"

[prices."anthropic/claude-cached"]
input_per_mtok = 3.0
output_per_mtok = 15.0
cached_input_per_mtok = 0.30
cache_write_per_mtok = 3.75

[prices."anthropic/claude-plain"]
input_per_mtok = 3.0
output_per_mtok = 15.0

[prices."openai/gpt-cached"]
input_per_mtok = 2.5
output_per_mtok = 10.0
cached_input_per_mtok = 1.25
"""


@pytest.fixture
def tenant(llm, start_server):
    llm.reset()
    llm.emulate_cache = True
    return Tenant(start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY}))


def expected_cost(model, reported):
    """What a call costs at `model`'s prices, from the usage the fake reported."""
    inp, out, cached, write = PRICES.get(model, (3.0, 15.0, None, None))
    if "cache_read_input_tokens" in reported:  # Anthropic's three parts
        plain, read, written = (reported["input_tokens"], reported["cache_read_input_tokens"],
                                reported["cache_creation_input_tokens"])
    else:
        read = reported["prompt_tokens_details"]["cached_tokens"]
        plain, written = reported["prompt_tokens"] - read, 0
    output = reported.get("output_tokens", reported.get("completion_tokens"))
    return (plain * inp + read * (cached if cached is not None else inp)
            + written * (write if write is not None else inp) + output * out) / 1e6


def breakpoints(value):
    if isinstance(value, list):
        return sum(breakpoints(v) for v in value)
    if isinstance(value, dict):
        return ("cache_control" in value) + sum(breakpoints(v) for v in value.values())
    return 0


def converse(tenant, agent, turns):
    bodies, conversation = [], None
    for n in range(turns):
        body = {"message": f"question {n}", "stateful": True}
        if conversation:
            body["conversation_id"] = conversation
        status, _, out = tenant.invoke(agent, body)
        assert status == 200, out
        conversation = out["conversation_id"]
        bodies.append(out)
    return bodies


def test_anthropic_reads_the_prefix_it_wrote_and_each_turn_is_charged_to_the_cent(tenant, llm):
    tenant.agent("support", provider="anthropic", model="claude-cached", instructions=INSTRUCTIONS)
    bodies = converse(tenant, "support", 3)
    sent = [r["body"] for r in llm.requests]
    assert sent[0]["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert breakpoints(sent[0]) == 2  # the system text and the turn so far (no tools, no history)
    assert breakpoints(sent[2]) == 3  # and the end of the history
    first, second, third = llm.cache_usage
    assert first["cache_read_input_tokens"] == 0 and first["cache_creation_input_tokens"] > 1000
    assert second["cache_read_input_tokens"] >= first["cache_creation_input_tokens"]
    assert third["cache_read_input_tokens"] > second["cache_read_input_tokens"]
    for body, reported in zip(bodies, llm.cache_usage):
        usage = body["usage"]
        total_input = (reported["input_tokens"] + reported["cache_read_input_tokens"]
                       + reported["cache_creation_input_tokens"])
        assert usage["input_tokens"] == total_input
        [model] = usage["models"]
        assert model["cached_input_tokens"] == reported["cache_read_input_tokens"]
        assert model["cache_write_tokens"] == reported["cache_creation_input_tokens"]
        assert usage["cost_usd"] == pytest.approx(expected_cost("claude-cached", reported), abs=1e-9)
    # The org's month counts what the turns were charged, cached tokens at their price.
    spent = tenant.settled_usage()["total_spent_usd"]
    assert spent == pytest.approx(sum(expected_cost("claude-cached", r) for r in llm.cache_usage), abs=1e-9)
    # A cached turn costs less than the same turn at the plain input price.
    assert bodies[2]["usage"]["cost_usd"] < (bodies[2]["usage"]["input_tokens"] * 3.0 + 6 * 15.0) / 1e6


def test_an_agent_may_turn_caching_off_and_a_model_without_cache_prices_pays_the_input_price(tenant, llm):
    tenant.agent("uncached", provider="anthropic", model="claude-cached", instructions=INSTRUCTIONS,
                 model_settings={"prompt_caching": False})
    converse(tenant, "uncached", 2)
    assert all(breakpoints(r["body"]) == 0 for r in llm.requests)
    assert isinstance(llm.requests[0]["body"]["system"], str)
    assert all(u["cache_read_input_tokens"] == 0 for u in llm.cache_usage)

    llm.reset()
    llm.emulate_cache = True
    tenant.agent("plain", provider="anthropic", model="claude-plain", instructions=INSTRUCTIONS)
    bodies = converse(tenant, "plain", 2)
    reported = llm.cache_usage[1]
    assert reported["cache_read_input_tokens"] > 0
    assert bodies[1]["usage"]["cost_usd"] == pytest.approx(expected_cost("claude-plain", reported), abs=1e-9)
    assert bodies[1]["usage"]["cost_usd"] == pytest.approx(
        (bodies[1]["usage"]["input_tokens"] * 3.0 + reported["output_tokens"] * 15.0) / 1e6, abs=1e-9)


def test_openai_cached_tokens_are_read_and_priced(tenant, llm):
    tenant.agent("gpt", provider="openai", model="gpt-cached", instructions=INSTRUCTIONS)
    bodies = converse(tenant, "gpt", 2)
    assert all(breakpoints(r["body"]) == 0 for r in llm.requests)  # OpenAI caches unasked
    first, second = llm.cache_usage
    assert first["prompt_tokens_details"]["cached_tokens"] == 0
    cached = second["prompt_tokens_details"]["cached_tokens"]
    assert cached > 0 and cached % 128 == 0
    assert bodies[1]["usage"]["models"][0]["cached_input_tokens"] == cached
    assert bodies[1]["usage"]["models"][0]["cache_write_tokens"] == 0
    for body, reported in zip(bodies, llm.cache_usage):
        assert body["usage"]["cost_usd"] == pytest.approx(expected_cost("gpt-cached", reported), abs=1e-9)


def test_a_streamed_turn_counts_cached_tokens_as_a_plain_one_does(tenant, llm):
    tenant.agent("support", provider="anthropic", model="claude-cached", instructions=INSTRUCTIONS)
    converse(tenant, "support", 1)
    status, _, out = tenant.invoke("support", {"message": "question 0", "stream": True},
                                   headers={"accept": "text/event-stream"})
    assert status == 200
    reported = llm.cache_usage[-1]
    assert reported["cache_read_input_tokens"] > 0
    completed = [block for block in out.split("\n\n") if block.startswith("id:") and "run.completed" in block]
    assert completed, out
    import json
    data = json.loads(completed[0].split("data: ", 1)[1])
    assert data["usage"]["models"][0]["cached_input_tokens"] == reported["cache_read_input_tokens"]
    assert data["usage"]["cost_usd"] == pytest.approx(expected_cost("claude-cached", reported), abs=1e-9)
