#!/usr/bin/env python3
"""The input cost of a 20-turn conversation with Anthropic prompt caching against the same
conversation without it, in one run, on the fake Anthropic provider of the tests (which reports
cache reads and writes as the real API does: tests/fakes/fake_llm.py, emulate_cache).

Two agents of one org share instructions of about 2,000 tokens and two tools; one has
`prompt_caching` off. Each holds a 20-turn conversation (a 300-character message a turn, the fake
echoing it). Prints each turn's input tokens, cached and written, the input cost of each
conversation (what it was charged less its output tokens) at Anthropic's list prices for Sonnet
($3 input, $0.30 cache read, $3.75 cache write, per million), and the ratio cached / uncached.

    python3 bench/prompt_caching.py [build-dir] [turns]     (default build-release)
"""
import http.client
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from bench_server import BenchServer  # noqa: E402
from fakes.fake_llm import FakeLlm  # noqa: E402

build = sys.argv[1] if len(sys.argv) > 1 else "build-release"
turns = int(sys.argv[2]) if len(sys.argv) > 2 else 20
PRICE = {"input": 3.0, "output": 15.0, "cached": 0.30, "write": 3.75}
INSTRUCTIONS = ("You are the support agent of Acme Outdoor. Answer from the order policy: returns "
                "within 30 days, exchanges within 60, free shipping over $50, and so on. ") * 50

llm = FakeLlm()
llm.emulate_cache = True
server = BenchServer(build, llm.port, config=f"""
[[providers]]
name = "anthropic"
kind = "anthropic"
base_url = "http://127.0.0.1:{llm.port}"
api_key_env = "BENCH_LLM_KEY"

[prices."anthropic/sonnet"]
input_per_mtok = {PRICE["input"]}
output_per_mtok = {PRICE["output"]}
cached_input_per_mtok = {PRICE["cached"]}
cache_write_per_mtok = {PRICE["write"]}
""")

try:
    token = server.provision()
    tools = [{"type": "http", "name": name, "description": f"{name} for an order",
              "parameters": {"type": "object", "properties": {"order": {"type": "string"}}},
              "url": "https://tools.example/" + name} for name in ("track_order", "start_return")]
    for agent, caching in (("cached", True), ("uncached", False)):
        server.admin("POST", "/orgs/acme/agents", {"id": agent, "config": {
            "name": agent, "instructions": INSTRUCTIONS, "tools": tools,
            "model": {"provider": "anthropic", "name": "sonnet", "prompt_caching": caching}}})
        server.admin("PUT", f"/orgs/acme/agents/{agent}/deployments/prod", {"version": 1})
        server.admin("PUT", "/orgs/acme/grants", {"token_id": server.token_id, "agent_id": agent,
                                                  "permissions": ["chat"]})
    conn = http.client.HTTPConnection("127.0.0.1", server.port)
    h = {"content-type": "application/json", "fl-api-org": "acme", "fl-api-env": "prod",
         "fl-api-token": token}

    def invoke(agent, body):
        conn.request("POST", f"/api/agents/{agent}/invoke", json.dumps(body), h)
        resp = conn.getresponse()
        data = resp.read()
        assert resp.status == 200, (resp.status, data)
        return json.loads(data)

    input_cost = {}
    print(f"{'turn':>4} {'agent':>9} {'input':>7} {'cached':>7} {'written':>7} {'input $':>10}")
    for agent in ("cached", "uncached"):
        conversation, total = None, 0.0
        for n in range(1, turns + 1):
            body = {"message": f"Turn {n}: " + "where is my order and can I return it? " * 8, "stateful": True}
            if conversation:
                body["conversation_id"] = conversation
            out = invoke(agent, body)
            conversation = out["conversation_id"]
            [m] = out["usage"]["models"]
            spent = m["cost_usd"] - m["output_tokens"] * PRICE["output"] / 1e6
            total += spent
            print(f"{n:>4} {agent:>9} {m['input_tokens']:>7} {m['cached_input_tokens']:>7} "
                  f"{m['cache_write_tokens']:>7} {spent:>10.6f}")
        input_cost[agent] = total
    print()
    print(f"command: python3 bench/prompt_caching.py {build} {turns}")
    print(f"input cost of a {turns}-turn conversation: cached ${input_cost['cached']:.6f}, "
          f"uncached ${input_cost['uncached']:.6f}")
    print(f"ratio cached / uncached: {input_cost['cached'] / input_cost['uncached']:.3f}")
finally:
    server.stop()
    llm.close()
