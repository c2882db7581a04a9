"""Runs (docs/runs.md, SPEC §12): a streamed turn and a background run followed by the WhatWG
`eventsource` client (tests/counterparts, pinned) across a cut connection, cancel while the model
or a tool runs, bad input, and a thousand background runs under [runs] max_concurrent."""
import http.client
import json
import os
import socket
import subprocess
import threading
import time

import pytest

import counterparts
from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import FakeToolServer, openai_text, openai_tools

PLAIN_BODY_KEYS = {"response", "conversation_id", "terminated_reason", "blocked", "usage", "output"}


def start(start_server, llm, extra=""):
    server = start_server(config_for(llm) + extra, env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("bot")
    return tenant


def headers(tenant):
    return {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
            "fl-api-token": tenant.token}


def follow(tenant, path, body=None, cut_after=0, timeout_ms=30000):
    """The eventsource client following `path` (a POSTed streamed invoke with `body`)."""
    args = ["node", "sse_follow.mjs", "--base", f"http://{tenant.server.host}:{tenant.server.port}",
            "--path", path, "--org", tenant.org, "--env", "prod", "--token", tenant.token,
            "--cut-after", str(cut_after), "--timeout-ms", str(timeout_ms)]
    if body is not None:
        args += ["--body", json.dumps(body)]
    out = subprocess.run(args, cwd=counterparts.counterparts_dir(), capture_output=True, text=True,
                         timeout=timeout_ms / 1000 + 30, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def get_run(tenant, run_id):
    return tenant.server.request("GET", f"/api/runs/{run_id}", headers=headers(tenant))


def cancel_run(tenant, run_id):
    return tenant.server.request("POST", f"/api/runs/{run_id}/cancel", headers=headers(tenant))


def wait_status(tenant, run_id, statuses, within=10.0):
    deadline = time.monotonic() + within
    while True:
        status, _, run = get_run(tenant, run_id)
        assert status == 200, run
        if run["status"] in statuses or time.monotonic() > deadline:
            return run
        time.sleep(0.02)


def wait_for(predicate, within=10.0):
    deadline = time.monotonic() + within
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def assert_whole(events):
    """Numbered from 1 without a gap or a repeat, one terminal event, last."""
    assert [int(e["id"]) for e in events] == list(range(1, len(events) + 1)), events
    assert events[0]["type"] == "run.started"
    terminal = [e for e in events if e["type"] in ("run.completed", "run.failed")]
    assert terminal == [events[-1]], events


def test_a_streamed_turn_survives_a_cut_connection_without_a_gap_or_a_repeat(start_server, llm):
    tenant = start(start_server, llm)
    llm.push(dict(openai_text("Slowly, then all at once."), delay=1.0))
    seen = follow(tenant, "/api/agents/bot/invoke", body={"message": "hi", "stateful": True}, cut_after=2)
    assert seen["error"] is None, seen
    events = seen["events"]
    assert_whole(events)
    types = [e["type"] for e in events]
    # The text streams as the model writes it (no check holds any back here), before its call ends.
    assert types[:3] == ["run.started", "model.started", "text.delta"], types
    # The rest (what arrived within 20 ms of the last release) follows, before or after the call's end.
    assert types[-1] == "run.completed" and types.count("model.finished") == 1, types
    assert set(types[2:-1]) == {"text.delta", "model.finished"}, types
    # The client came back on its own, from the last event it had, at the run's own address.
    first, again = seen["requests"][0], seen["requests"][1]
    assert first["method"] == "POST" and first["last_event_id"] is None
    assert again["method"] == "GET" and again["url"].endswith(f"/api/runs/{events[0]['data']['run_id']}/events")
    assert again["last_event_id"] == "2"
    done = events[-1]["data"]
    assert set(done) == PLAIN_BODY_KEYS and done["response"] == "Slowly, then all at once."
    assert "".join(e["data"]["text"] for e in events if e["type"] == "text.delta") == "Slowly, then all at once."
    assert all(e["data"]["call"] == 1 for e in events if e["type"] == "text.delta")
    run_id = events[0]["data"]["run_id"]
    _, _, run = get_run(tenant, run_id)
    assert run["status"] == "completed" and run["result"] == done
    # The conversation it started holds the turn, like a plain call's.
    _, _, convo = tenant.conversation(done["conversation_id"])
    assert [m["content"] for m in convo["messages"]] == ["hi", "Slowly, then all at once."]


def test_a_background_run_is_queued_read_and_its_events_resumed(start_server, llm):
    tenant = start(start_server, llm)
    llm.push(openai_tools([("nothing", {})]), dict(openai_text("Done in the background."), delay=1.5))
    status, head, queued = tenant.invoke("bot", {"message": "take your time", "background": True})
    assert status == 202, queued
    assert set(queued) == {"run_id", "status", "conversation_id"} and queued["status"] == "queued"
    assert head["location"] == f"/api/runs/{queued['run_id']}"
    seen = follow(tenant, head["location"] + "/events", cut_after=1)
    assert seen["error"] is None, seen
    events = seen["events"]
    assert_whole(events)
    # Cut mid-run (the client may have had a few events by then): it resumed after its last one.
    assert 1 <= int(seen["requests"][1]["last_event_id"]) < len(events)
    assert "tool.started" in [e["type"] for e in events]
    run = wait_status(tenant, queued["run_id"], {"completed"})
    assert run["result"] == events[-1]["data"] and run["error"] is None
    assert run["created_at"] and run["started_at"] and run["ended_at"]
    # A finished run's events are there from the start, and after any event.
    again = follow(tenant, head["location"] + "/events")
    assert again["events"] == events
    status, _, raw = tenant.server.request("GET", head["location"] + "/events?last_event_id=3",
                                           headers=headers(tenant))
    assert status == 200 and raw.startswith("id: 4\n")


def test_a_key_gives_a_duplicate_background_call_the_same_run(start_server, llm):
    tenant = start(start_server, llm)
    body = {"message": "once", "background": True}
    first = tenant.invoke("bot", body, headers={"idempotency-key": "bg-1"})
    again = tenant.invoke("bot", body, headers={"idempotency-key": "bg-1"})
    assert first[0] == again[0] == 202
    assert again[2]["run_id"] == first[2]["run_id"] and again[1]["idempotent-replayed"] == "true"
    assert again[1]["location"] == first[1]["location"]
    wait_status(tenant, first[2]["run_id"], {"completed"})
    assert len(llm.requests) == 1  # one run, one model call, one charge


def test_canceling_while_the_model_runs_stores_and_spends_nothing(start_server, llm):
    tenant = start(start_server, llm)
    llm.push(dict(openai_text("never answered"), delay=30))
    _, _, queued = tenant.invoke("bot", {"message": "think", "stateful": True, "background": True})
    wait_for(lambda: len(llm.requests) == 1)
    started = time.monotonic()
    status, _, run = cancel_run(tenant, queued["run_id"])
    assert status == 200 and run["status"] == "canceled", run
    assert time.monotonic() - started < 3
    assert run["error"]["status"] == 499 and run["error"]["code"] == "canceled"
    wait_for(lambda: llm.disconnects == 1)  # the provider call was canceled with its run
    assert tenant.conversation(queued["conversation_id"])[0] == 404  # its first turn never committed
    usage = tenant.settled_usage()
    assert usage["total_spent_usd"] == 0 and usage["total_reserved_usd"] == 0
    # Canceling twice changes nothing; a completed run cannot be canceled.
    assert cancel_run(tenant, queued["run_id"])[2]["status"] == "canceled"
    _, _, done = tenant.invoke("bot", {"message": "quick", "background": True})
    wait_status(tenant, done["run_id"], {"completed"})
    status, _, body = cancel_run(tenant, done["run_id"])
    assert status == 409 and error_of(body)["code"] == "run_ended"


def test_canceling_while_a_tool_runs_ends_the_tool_call(start_server, llm):
    tools = FakeToolServer()
    try:
        server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
        tenant = Tenant(server)
        tenant.agent("shop", tools=[{"type": "http", "name": "track", "description": "Track",
                                     "parameters": {"type": "object"},
                                     "url": f"http://127.0.0.1:{tools.port}/track", "method": "POST"}])
        tools.delay = 30
        llm.push(openai_tools([("track", {"order": "A-1"})]), openai_text("never asked"))
        _, _, queued = tenant.invoke("shop", {"message": "where?", "background": True})
        wait_for(lambda: len(tools.calls) == 1)
        status, _, run = cancel_run(tenant, queued["run_id"])
        assert status == 200 and run["status"] == "canceled", run
        wait_for(lambda: tools.disconnects == 1)
        assert len(llm.requests) == 1
        status, _, raw = tenant.server.request("GET", f"/api/runs/{queued['run_id']}/events",
                                               headers=headers(tenant))
        assert "event: tool.started" in raw
        assert raw.count("event: model.started") == 1  # no step after the cancel
        assert raw.rstrip().endswith('"code":"canceled","message":"the caller canceled the turn"}')
    finally:
        tools.close()


def test_a_streamed_turn_goes_on_when_its_caller_hangs_up_unless_asked_to_stop(start_server, llm):
    tenant = start(start_server, llm)

    def hang_up_once_the_model_is_called(body):
        calls = len(llm.requests)  # before the call: its model request may come before its event
        sock = socket.create_connection((tenant.server.host, tenant.server.port))
        data = json.dumps(body).encode()
        head = "".join(f"{k}: {v}\r\n" for k, v in headers(tenant).items())
        sock.sendall(f"POST /api/agents/bot/invoke HTTP/1.1\r\nHost: x\r\n{head}Accept: text/event-stream\r\n"
                     f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        got = b""
        while b"model.started" not in got:
            got += sock.recv(4096)
        wait_for(lambda: len(llm.requests) == calls + 1)
        sock.close()
        return json.loads(got.split(b"data: ", 1)[1].split(b"\n", 1)[0])["run_id"]

    llm.push(dict(openai_text("finished anyway"), delay=0.5))
    kept = hang_up_once_the_model_is_called({"message": "go on"})
    assert wait_status(tenant, kept, {"completed"})["result"]["response"] == "finished anyway"
    llm.push(dict(openai_text("never answered"), delay=30))
    stopped = hang_up_once_the_model_is_called({"message": "stop", "on_disconnect": "cancel"})
    run = wait_status(tenant, stopped, {"canceled"}, within=5)
    assert run["status"] == "canceled"
    wait_for(lambda: llm.disconnects == 1)


def test_bad_run_input_gets_a_4xx_naming_what_is_wrong(start_server, llm):
    tenant = start(start_server, llm)
    status, _, body = get_run(tenant, "run_unknown")
    assert status == 404 and error_of(body)["code"] == "run_not_found"
    _, _, queued = tenant.invoke("bot", {"message": "hi", "background": True})
    for bad in ("x", "-1", "1.5"):
        status, _, body = tenant.server.request("GET", f"/api/runs/{queued['run_id']}/events",
                                                headers={**headers(tenant), "last-event-id": bad})
        assert status == 400 and "Last-Event-ID" in error_of(body)["message"], body
    status, _, body = tenant.server.request("GET", f"/api/runs/{queued['run_id']}/events?last_event_id=abc",
                                            headers=headers(tenant))
    assert status == 400 and "last_event_id" in error_of(body)["message"]
    for body, field in (({"message": "x", "background": "yes"}, "background"),
                        ({"message": "x", "background": True, "stream": True}, "stream"),
                        ({"message": "x", "stream": True, "on_disconnect": "later"}, "on_disconnect")):
        status, _, out = tenant.invoke("bot", body)
        assert status == 400 and f"'{field}'" in error_of(out)["message"], out
    # A conversation with a turn queued or running is busy for a background run.
    _, _, first = tenant.invoke("bot", {"message": "start", "stateful": True})
    llm.push(dict(openai_text("slow"), delay=1.0))
    more = {"message": "more", "stateful": True, "conversation_id": first["conversation_id"], "background": True}
    assert tenant.invoke("bot", more)[0] == 202
    status, _, body = tenant.invoke("bot", more)
    assert status == 409 and error_of(body)["code"] == "conversation_busy"
    assert "conversation_id" in error_of(body)["message"]
    # Another organization's run is not found; a refusal before a stream opens is plain JSON.
    other = Tenant(tenant.server, org="globex")
    assert get_run(other, queued["run_id"])[0] == 404
    status, head, body = tenant.server.request("POST", "/api/agents/missing/invoke", {"message": "x"},
                                               {**headers(tenant), "accept": "text/event-stream"})
    assert status == 404 and head["content-type"] == "application/json"


@pytest.mark.both_stores
def test_a_thousand_background_runs_all_complete_within_max_concurrent(start_server, llm):
    # One organization alone: its share is the server's whole max_concurrent.
    tenant = start(start_server, llm, "\n[runs]\nmax_concurrent = 4\nmax_running_per_org = 4\n")
    count = 1000
    llm.push(*[dict(openai_text(f"done {i}"), delay=0.01) for i in range(count)])
    ids = []
    lock = threading.Lock()

    def queue(n):
        conn = http.client.HTTPConnection(tenant.server.host, tenant.server.port, timeout=30)
        for i in range(n):
            conn.request("POST", "/api/agents/bot/invoke", json.dumps({"message": "go", "background": True}),
                         headers(tenant))
            resp = conn.getresponse()
            body = json.loads(resp.read())
            assert resp.status == 202, body
            with lock:
                ids.append(body["run_id"])
        conn.close()

    threads = [threading.Thread(target=queue, args=(count // 4,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(ids) == count
    deadline = time.monotonic() + 120
    pending = list(ids)
    while pending:
        assert time.monotonic() < deadline, f"{len(pending)} runs never completed"
        status, _, run = get_run(tenant, pending[-1])
        if run["status"] != "completed":
            time.sleep(0.2)
            continue
        pending = [i for i in pending if get_run(tenant, i)[2]["status"] != "completed"]
    assert llm.max_in_flight == 4  # never more than max_concurrent model calls at once, and that many
    assert len(llm.requests) == count
