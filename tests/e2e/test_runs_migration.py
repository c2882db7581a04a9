"""Runs have one home, their `runs` row (docs/runs.md): a SQLite store written by the build before
(tests/fixtures/runs_before_one_home) is migrated as the current build opens it, and every run it
held answers as it did then, the paused one still waiting for its decision. SQLite's alone: the
forms it moves were never written to PostgreSQL."""
import json
import os
import shutil
import sqlite3

from daemon_harness import API_KEY, config_for
from fakes.fake_llm import openai_text

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "runs_before_one_home")


def open_fixture(start_server, llm, tmp_path):
    with open(os.path.join(FIXTURE, "expected.json")) as f:
        expected = json.load(f)
    db = tmp_path / "before" / "agentgate.db"
    db.parent.mkdir()
    shutil.copy(os.path.join(FIXTURE, "agentgate.db"), db)
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY,
                                                "AGENTGATE_STORE_URL": f"sqlite:{db}"})
    headers = {"content-type": "application/json", "fl-api-org": expected["org"],
               "fl-api-env": expected["env"], "fl-api-token": expected["token"]}
    return server, expected, headers, db


def test_every_run_the_build_before_kept_answers_as_it_did(start_server, llm, tmp_path):
    server, expected, headers, db = open_fixture(start_server, llm, tmp_path)
    for kind, want in expected["runs"].items():
        run_id = want["run"]["run_id"]
        status, _, run = server.request("GET", f"/api/runs/{run_id}", headers=headers)
        assert status == 200 and run == want["run"], (kind, run)
        if "events" in want:
            status, _, events = server.request("GET", f"/api/runs/{run_id}/events", headers=headers)
            assert status == 200 and events == want["events"], (kind, events)
    status, _, listed = server.admin("GET", f"/orgs/{expected['org']}/environments/prod/runs")
    assert status == 200 and listed == expected["listed"], listed
    # One home: every run in `runs`, and the turns' run columns gone.
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == len(expected["runs"])
        columns = {row[1] for row in c.execute("PRAGMA table_info(turns)")}
        assert not columns & {"run_created_at_ms", "run", "run_result", "run_events"}, columns
        assert not c.execute("SELECT 1 FROM sqlite_master WHERE name = 'turns_runs_by_env'").fetchall()


def test_the_paused_run_goes_on_once_decided(start_server, llm, tmp_path):
    server, expected, headers, _ = open_fixture(start_server, llm, tmp_path)
    org = expected["org"]
    _, _, approver = server.admin("POST", f"/orgs/{org}/tokens", {"name": "ops"})
    server.admin("PUT", f"/orgs/{org}/grants",
                 {"token_id": approver["id"], "agent_id": "shop", "permissions": ["approve"]})
    paused = expected["runs"]["paused"]["run"]
    llm.push(openai_text("I did not refund A-1.", input_tokens=30, output_tokens=6))
    status, _, done = server.request(
        "POST", f"/api/runs/{paused['run_id']}/approvals",
        {"decisions": [{"call_id": paused["pending_actions"][0]["call_id"], "approve": False,
                        "reason": "not today"}]},
        {**headers, "fl-api-token": approver["token"]}, timeout=30)
    assert status == 200 and done["response"] == "I did not refund A-1.", done
    # Its usage counts the call that paused it too.
    assert done["usage"]["model_calls"] == 2 and done["usage"]["input_tokens"] == 40 + 30, done
    status, _, run = server.request("GET", f"/api/runs/{paused['run_id']}", headers=headers)
    assert status == 200 and run["status"] == "completed" and run["result"] == done, run
