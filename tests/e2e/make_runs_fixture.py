"""Makes tests/fixtures/runs_before_one_home/ with the build before the runs' one home (issue 56):
run with that build's binary, `pytest tests/e2e/make_runs_fixture.py`. Not a test."""
import json
import os
import shutil
import sqlite3
import time

from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import FakeToolServer, openai_error, openai_text, openai_tools
from test_runs import follow, headers

OUT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "runs_before_one_home")
TOOL = {"type": "http", "description": "Orders", "parameters": {"type": "object"}}


def canceled_at_once(server, tenant):
    import socket
    sock = socket.create_connection((server.host, server.port))
    body = json.dumps({"message": "slow"})
    head = "".join(f"{k}: {v}\r\n" for k, v in headers(tenant).items())
    sock.sendall((f"POST /api/agents/bot/invoke HTTP/1.1\r\nHost: x\r\n{head}Accept: text/event-stream\r\n"
                  f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
    raw = b""
    while b"run_id" not in raw or b"}" not in raw.split(b"run_id", 1)[1]:
        raw += sock.recv(65536)
    run_id = raw.split(b'"run_id":"', 1)[1].split(b'"', 1)[0].decode()
    status, _, out = server.request("POST", f"/api/runs/{run_id}/cancel", headers=headers(tenant))
    assert status == 200, out
    sock.close()
    return run_id


def test_make(start_server, llm, tmp_path):
    tools = FakeToolServer()
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("bot")
    tenant.agent("shop", tools=[
        {**TOOL, "name": "refund", "url": f"http://127.0.0.1:{tools.port}/refund", "method": "POST",
         "approval": "always"},
        {**TOOL, "name": "status", "url": f"http://127.0.0.1:{tools.port}/status", "method": "GET"}])
    runs = {}
    # A quick stateless streamed run: kept in its turn's row, its result as packed facts.
    llm.push(openai_text("Hello from a quick run.", input_tokens=11, output_tokens=7))
    runs["quick_in_turn"] = follow(tenant, "/api/agents/bot/invoke", body={"message": "hi"})["events"][0]["data"]["run_id"]
    # A stateless streamed run with a tool call: kept in its turn's row, its result as JSON.
    llm.push(openai_tools([("status", {"order": "A-1"})], input_tokens=20, output_tokens=5),
             openai_text("A-1 has shipped.", input_tokens=30, output_tokens=6))
    runs["tools_in_turn"] = follow(tenant, "/api/agents/shop/invoke", body={"message": "where is A-1?"})["events"][0]["data"]["run_id"]
    # A stateless streamed run canceled before its first write: its own row, written once as it
    # ended, its events folded into runs.events.
    llm.push(dict(openai_text("too late"), delay=2.0))
    runs["folded_events"] = canceled_at_once(server, tenant)
    # A stateful streamed run: its own row, its events in rows of their own.
    llm.push(openai_text("Noted, I will remember.", input_tokens=12, output_tokens=5))
    runs["events_in_rows"] = follow(tenant, "/api/agents/bot/invoke",
                                   body={"message": "remember me", "stateful": True})["events"][0]["data"]["run_id"]
    # A plain call paused for approval.
    llm.push(openai_tools([("refund", {"order": "A-1"})], input_tokens=40, output_tokens=8))
    status, _, paused = tenant.invoke("shop", {"message": "refund A-1"})
    assert status == 200 and paused["run_id"], paused
    runs["paused"] = paused["run_id"]
    time.sleep(0.5)  # every write-behind done
    expected = {"org": tenant.org, "env": "prod", "token": tenant.token, "runs": {}}
    for kind, run_id in runs.items():
        _, _, run = server.request("GET", f"/api/runs/{run_id}", headers=headers(tenant))
        expected["runs"][kind] = {"run": run}
        if kind != "paused":  # a paused plain call has written no events, and its stream stays open
            _, _, events = server.request("GET", f"/api/runs/{run_id}/events", headers=headers(tenant))
            expected["runs"][kind]["events"] = events
    _, _, listed = server.admin("GET", f"/orgs/{tenant.org}/environments/prod/runs")
    expected["listed"] = listed
    server.stop()
    tools.close()
    db = os.path.join(server.dir, "var", "agentgate.db")
    with sqlite3.connect(db) as c:
        kept = c.execute("SELECT COUNT(*) FROM turns WHERE run_created_at_ms > 0").fetchone()[0]
        facts = c.execute("SELECT COUNT(*) FROM turns WHERE run_result LIKE '~%'").fetchone()[0]
        folded = c.execute("SELECT COUNT(*) FROM runs WHERE events <> ''").fetchone()[0]
        assert (kept, facts, folded) == (2, 1, 1), (kept, facts, folded)
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    os.makedirs(OUT, exist_ok=True)
    fixture = os.path.join(OUT, "agentgate.db")
    shutil.copy(db, fixture)
    # The paused run waits until 2100, so the test finds it paused whatever day it runs.
    c = sqlite3.connect(fixture, isolation_level=None)
    c.execute("UPDATE runs SET expires_at_ms = 4102444800000 WHERE status = 'requires_action'")
    c.execute("VACUUM")
    c.close()
    for run in [expected["runs"]["paused"]["run"], *expected["listed"]["runs"]]:
        if run["status"] == "requires_action":
            run["expires_at"] = "2100-01-01T00:00:00Z"
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
