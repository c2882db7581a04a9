#!/usr/bin/env python3
"""A stateful turn on a long conversation against the same turn on a short one, in one run.

Two conversations of one agent (offline model, context_tokens 4096, so about ten 600-byte messages
fit the window): A holds 10 stored messages, B holds 10,000 (seeded into the SQLite store
directly). N turns alternate between them, sequentially, on keep-alive connections. Prints p50 and
p99 of each and the ratio B/A, and the bytes each conversation's last turn stored (its transcript
and its two messages), which must not grow with the conversation.

    python3 bench/long_conversation.py [build-release/agentgate] [N]
"""
import http.client
import json
import os
import secrets
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1] if len(sys.argv) > 1 else "build-release/agentgate"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 90  # under the 200-calls-per-2-minutes window
SIZE = 600

work = tempfile.mkdtemp()
db = f"{work}/db/agentgate.db"
admin = "bench-admin-" + secrets.token_hex(8)
env = dict(os.environ, AGENTGATE_SERVER_LISTEN="127.0.0.1:0", AGENTGATE_STORE_URL=f"sqlite:{db}",
           AGENTGATE_ADMIN_TOKEN=admin, AGENTGATE_MASTER_KEY=secrets.token_hex(32))
log = open(f"{work}/server.log", "w+")
proc = subprocess.Popen([binary, "serve"], stdout=log, stderr=subprocess.STDOUT, env=env, text=True)


def call(conn, method, path, body, headers):
    conn.request(method, path, json.dumps(body), headers)
    resp = conn.getresponse()
    data = resp.read()
    assert resp.status in (200, 201), (resp.status, data)
    return json.loads(data) if data else None


try:
    address = None
    while address is None:
        time.sleep(0.05)
        for line in open(f"{work}/server.log"):
            if '"event":"listening"' in line:
                address = json.loads(line)["address"]
    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port))
    a = {"authorization": f"Bearer {admin}", "content-type": "application/json"}
    call(conn, "POST", "/admin/v1/orgs", {"id": "acme", "name": "Acme"}, a)
    call(conn, "POST", "/admin/v1/orgs/acme/environments", {"name": "prod"}, a)
    token = call(conn, "POST", "/admin/v1/orgs/acme/tokens", {"name": "bench"}, a)
    call(conn, "POST", "/admin/v1/orgs/acme/agents", {"id": "long", "config": {
        "name": "Long", "instructions": "Answer briefly.",
        "model": {"provider": "offline", "name": "offline-1", "max_output_tokens": 256,
                  "context_tokens": 4096}}}, a)
    call(conn, "PUT", "/admin/v1/orgs/acme/agents/long/deployments/prod", {"version": 1}, a)
    call(conn, "PUT", "/admin/v1/orgs/acme/grants",
         {"token_id": token["id"], "agent_id": "long", "permissions": ["chat"]}, a)
    h = {"content-type": "application/json", "fl-api-org": "acme", "fl-api-env": "prod",
         "fl-api-token": token["token"]}
    invoke = "/api/agents/long/invoke"
    first_a = call(conn, "POST", invoke, {"message": "start A", "stateful": True}, h)
    first_b = call(conn, "POST", invoke, {"message": "start B", "stateful": True}, h)
    conv = {"A": first_a["conversation_id"], "B": first_b["conversation_id"]}

    # Seed: each conversation has its first turn's 2 messages; add 8 to A and 9,998 to B.
    store = sqlite3.connect(db, timeout=30)
    for name, total in (("A", 10), ("B", 10_000)):
        rows = [(conv[name], seq, "user" if seq % 2 == 1 else "assistant",
                 f"message {seq} " + "x" * SIZE, 1) for seq in range(3, total + 1)]
        store.executemany("INSERT INTO messages(conversation_id, seq, role, content, created_at_ms) "
                          "VALUES (?, ?, ?, ?, ?)", rows)
    store.commit()
    counts = {name: store.execute("SELECT count(*) FROM messages WHERE conversation_id = ?",
                                  (conv[name],)).fetchone()[0] for name in conv}

    ms = {"A": [], "B": []}
    for i in range(n):
        for name in ("A", "B") if i % 2 == 0 else ("B", "A"):
            started = time.perf_counter()
            answer = call(conn, "POST", invoke,
                          {"message": f"turn {i} " + "y" * SIZE, "stateful": True,
                           "conversation_id": conv[name]}, h)
            ms[name].append((time.perf_counter() - started) * 1000)
            assert answer["conversation_id"] == conv[name]

    def stored(name):
        transcript = store.execute("SELECT length(transcript) FROM turns WHERE conversation_id = ? "
                                   "ORDER BY started_at_ms DESC LIMIT 1", (conv[name],)).fetchone()[0]
        messages = store.execute("SELECT sum(length(content)) FROM (SELECT content FROM messages "
                                 "WHERE conversation_id = ? ORDER BY seq DESC LIMIT 2)",
                                 (conv[name],)).fetchone()[0]
        return transcript + messages

    def p(values, q):
        values = sorted(values)
        return values[min(len(values) - 1, int(len(values) * q))]

    print(f"command: python3 bench/long_conversation.py {binary} {n}  ({os.cpu_count()} cores; "
          f"SQLite; offline model, context_tokens 4096; {SIZE}-byte messages)")
    for name in ("A", "B"):
        print(f"conversation {name}: {counts[name]:>6} stored messages at the start, {n} turns: "
              f"p50 {statistics.median(ms[name]):.3f} ms, p99 {p(ms[name], 0.99):.3f} ms, "
              f"last turn stored {stored(name)} bytes")
    print(f"ratio B/A: p50 {statistics.median(ms['B']) / statistics.median(ms['A']):.2f}x "
          f"(goal <= 1.2x), stored bytes {stored('B') / stored('A'):.2f}x")
finally:
    proc.terminate()
    proc.wait(10)
    shutil.rmtree(work, ignore_errors=True)
