"""Followers of a paused run (issue 57 §1): what FOLLOWERS open event streams on one run that waits
for a person's approval cost the store. One server (SQLite store), a provider in this script that
asks for a tool call needing approval, so a background run pauses; then FOLLOWERS clients follow
its events from after its pause (GET /api/runs/{id}/events, Last-Event-ID), waiting for a decision.

    python3 bench/followers.py [build-dir] [FOLLOWERS] [SECONDS]    (default: build-release 1000 10)

The figure is the server's SQL statements a second (agentgate_store_statements_total) over SECONDS
with the followers waiting, beside the same server's rate over SECONDS with none (its own
background work: lease, claims, expiry, webhooks). Goal: under 20 statements a second with 1,000.
"""
import asyncio
import http.client
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_server import BenchServer  # noqa: E402
from in_flight import raise_descriptor_limit, read_message  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build-release"
FOLLOWERS = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0

TOOL_CALL = json.dumps({
    "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-bench",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [{
            "id": "call_0", "type": "function",
            "function": {"name": "refund", "arguments": "{\"order\": \"A-1\"}"}}]}}],
    "usage": {"prompt_tokens": 20, "completion_tokens": 4}}).encode()


async def provider(reader, writer):
    """Every model call asks for the refund tool, which needs approval: the run pauses."""
    try:
        while True:
            await read_message(reader)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                         + str(len(TOOL_CALL)).encode() + b"\r\n\r\n" + TOOL_CALL)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


def api_headers(token):
    return {"content-type": "application/json", "fl-api-org": "acme", "fl-api-env": "prod",
            "fl-api-token": token}


def statements(port):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    for line in text.splitlines():
        if line.startswith("agentgate_store_statements_total "):
            return float(line.split()[1])
    raise SystemExit("the server exports no agentgate_store_statements_total")


async def follow(port, token, run_id, after, opened, stop):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write((f"GET /api/runs/{run_id}/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream"
                  f"\r\nfl-api-org: acme\r\nfl-api-env: prod\r\nfl-api-token: {token}\r\n"
                  f"Last-Event-ID: {after}\r\n\r\n").encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    opened.append(1)
    await stop.wait()
    writer.close()


async def rate(port, seconds):
    before = statements(port)
    started = time.monotonic()
    await asyncio.sleep(seconds)
    return (statements(port) - before - 1) / (time.monotonic() - started)  # less the first read


async def main():
    raise_descriptor_limit(FOLLOWERS * 2 + 256)
    upstream = await asyncio.start_server(provider, "127.0.0.1", 0)
    upstream_port = upstream.sockets[0].getsockname()[1]
    # Room for every follower (the limits' defaults are 100 a run and 1,000 a token); a build
    # without the limits ignores these.
    os.environ["AGENTGATE_RUNS_MAX_FOLLOWERS_PER_RUN"] = str(FOLLOWERS)
    os.environ["AGENTGATE_RUNS_MAX_STREAMS_PER_TOKEN"] = str(FOLLOWERS)
    server = BenchServer(BUILD, upstream_port)
    stop = asyncio.Event()
    try:
        token = server.provision()
        server.admin("POST", "/orgs/acme/agents/bench/versions", {"config": {
            "name": "Bench", "instructions": "Refund when asked.",
            "model": {"provider": "bench", "name": "gpt-bench", "max_output_tokens": 256},
            "tools": [{"type": "http", "name": "refund", "description": "Refunds an order",
                       "parameters": {"type": "object", "properties": {"order": {"type": "string"}}},
                       "url": "http://127.0.0.1:9/refund", "approval": "always"}]}})
        server.admin("PUT", "/orgs/acme/agents/bench/deployments/prod", {"version": 2})
        conn = http.client.HTTPConnection("127.0.0.1", server.port)
        conn.request("POST", "/api/agents/bench/invoke", headers=api_headers(token),
                     body=json.dumps({"message": "refund A-1", "background": True}))
        response = conn.getresponse()
        queued = json.loads(response.read())
        assert response.status == 202, queued
        run_id = queued["run_id"]
        for _ in range(500):
            conn.request("GET", f"/api/runs/{run_id}", headers=api_headers(token))
            run = json.loads(conn.getresponse().read())
            if run["status"] == "requires_action":
                break
            await asyncio.sleep(0.01)
        assert run["status"] == "requires_action", run
        conn.request("GET", f"/api/runs/{run_id}/events", headers=api_headers(token))
        events = conn.getresponse().read().decode()
        last = max(int(line[4:]) for line in events.splitlines() if line.startswith("id: "))

        await asyncio.sleep(1.0)  # the server settles after its start
        idle = await rate(server.port, SECONDS)
        opened = []
        tasks = [asyncio.create_task(follow(server.port, token, run_id, last, opened, stop))
                 for _ in range(FOLLOWERS)]
        while len(opened) < FOLLOWERS:
            done = [t for t in tasks if t.done() and t.exception()]
            if done:
                raise done[0].exception()
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)  # past the streams' first looks
        followed = await rate(server.port, SECONDS)
        print(f"command: python3 bench/followers.py {BUILD} {FOLLOWERS} {SECONDS:g}  "
              f"({os.cpu_count()} cores, SQLite)")
        print(f"store statements a second: {idle:.1f} with no follower, {followed:.1f} with "
              f"{FOLLOWERS} followers of one paused run (goal: under 20)")
    finally:
        stop.set()
        server.stop(signal.SIGKILL)
        upstream.close()
        await asyncio.sleep(0.2)  # each connection's task sees its end and returns


if __name__ == "__main__":
    asyncio.run(main())
