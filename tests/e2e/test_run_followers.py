"""Followers of a run (docs/runs.md, "Followers"; issue 57 §1), through the binary:
what following a paused run costs the store, the limits per run and per token (429 naming the
limit), and a stream that ends with a `stream.ended` event of its own once its token is revoked or
its grant removed, while the run goes on. The revocation test follows with the WhatWG
`eventsource` client (tests/counterparts, pinned)."""
import json
import socket
import subprocess
import time

import pytest

import counterparts
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text, openai_tools
from test_approvals import TOOL, approver, decide, pause_a_refund, shop, start, tools  # noqa: F401
from test_runs import get_run, headers

LIMITS = {"AGENTGATE_RUNS_MAX_FOLLOWERS_PER_RUN": "2", "AGENTGATE_RUNS_MAX_STREAMS_PER_TOKEN": "3"}


def start_with(start_server, llm, env):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, **env})
    return Tenant(server)


class Stream:
    """One raw event stream: GET /api/runs/{id}/events from after event `after`."""

    def __init__(self, tenant, run_id, after, token=None):
        self.sock = socket.create_connection((tenant.server.host, tenant.server.port), timeout=10)
        h = {**headers(tenant), "fl-api-token": token or tenant.token}
        lines = "".join(f"{k}: {v}\r\n" for k, v in h.items())
        self.sock.sendall((f"GET /api/runs/{run_id}/events?last_event_id={after} HTTP/1.1\r\n"
                           f"Host: x\r\nAccept: text/event-stream\r\n{lines}\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            assert chunk, self.buffer
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        self.status = int(head.split(b" ")[1])
        self.head = head.decode()

    def wait_for(self, marker, within=10.0):
        """The stream's text once `marker` is in it."""
        self.sock.settimeout(within)
        deadline = time.monotonic() + within
        while marker.encode() not in self.buffer:
            assert time.monotonic() < deadline, self.buffer
            chunk = self.sock.recv(65536)
            assert chunk, self.buffer
            self.buffer += chunk
        return self.buffer.decode(errors="replace")

    def body_json(self):
        """A refusal's JSON body (Content-Length)."""
        length = int(next(line.split(":")[1] for line in self.head.split("\r\n")
                          if line.lower().startswith("content-length")))
        while len(self.buffer) < length:
            self.buffer += self.sock.recv(65536)
        return json.loads(self.buffer[:length])

    def close(self):
        self.sock.close()


def statements(server):
    text = server.request("GET", "/metrics")[2]
    return float(next(line.split()[1] for line in text.splitlines()
                      if line.startswith("agentgate_store_statements_total ")))


def open_streams(server):
    text = server.request("GET", "/metrics")[2]
    return float(next(line.split()[1] for line in text.splitlines()
                      if line.startswith("agentgate_event_streams_open ")))


def paused_run(tenant, llm, tools, first=True):
    """A plain call's run paused for approval: it wrote its run.started and run.requires_action
    (events 1 and 2), so its followers from after event 2 wait for its decision."""
    if first:
        shop(tenant, tools)
    paused = pause_a_refund(tenant, llm)
    return paused["run_id"], 2


def wait_open(server, count, within=10.0):
    deadline = time.monotonic() + within
    while open_streams(server) != count:
        assert time.monotonic() < deadline, open_streams(server)
        time.sleep(0.02)


def test_a_follower_of_a_plain_calls_pause_reads_how_it_began_and_why_it_waits(start_server, llm, tools):
    """Issue 72 §5: a plain call's paused run has the events a streamed run's pause has, so a
    follower from the start reads run.started and run.requires_action (with what waits) at once."""
    tenant = start_with(start_server, llm, {})
    run_id, _ = paused_run(tenant, llm, tools)
    follower = Stream(tenant, run_id, 0)
    assert follower.status == 200, follower.head
    text = follower.wait_for("event: run.requires_action")
    follower.close()
    assert text.index("event: run.started") < text.index("event: run.requires_action"), text
    assert "id: 1\n" in text and "id: 2\n" in text, text
    waiting = json.loads(text.split("event: run.requires_action", 1)[1].split("data: ", 1)[1].split("\n", 1)[0])
    assert waiting["run_id"] == run_id and waiting["terminated_reason"] == "approval_required", waiting
    assert [a["tool"] for a in waiting["pending_actions"]] == ["refund"], waiting


@pytest.mark.both_stores
def test_followers_of_a_paused_run_cost_the_store_one_look_a_second(start_server, llm, tools):
    # Thirty followers with one token: past its share of a run's followers (10 by default).
    tenant = start(start_server, llm, "\n[runs]\nmax_followers_per_run_per_token = 30\n")
    run_id, last = paused_run(tenant, llm, tools)
    time.sleep(0.2)

    def rate(seconds=2.0):
        before = statements(tenant.server)
        started = time.monotonic()
        time.sleep(seconds)
        return (statements(tenant.server) - before - 1) / (time.monotonic() - started)

    idle = rate()
    streams = [Stream(tenant, run_id, last) for _ in range(30)]
    try:
        assert all(s.status == 200 for s in streams)
        wait_open(tenant.server, 30)
        time.sleep(0.3)
        followed = rate()
        # One watch for the run, a look a second (a follower each polled the store 10 times a
        # second before; 30 of them were some 300 statements a second).
        assert followed - idle < 5, (idle, followed)
    finally:
        for s in streams:
            s.close()
    wait_open(tenant.server, 0)


def test_followers_per_run_and_streams_per_token_are_limited_with_a_429_naming_the_limit(
        start_server, llm, tools):
    tenant = start_with(start_server, llm, LIMITS)
    run_id, last = paused_run(tenant, llm, tools)
    first, second = Stream(tenant, run_id, last), Stream(tenant, run_id, last)
    assert first.status == 200 and second.status == 200
    third = Stream(tenant, run_id, last)
    assert third.status == 429, third.head
    assert "retry-after" in third.head.lower()
    error = third.body_json()["error"]
    assert error["code"] == "too_many_streams" and "max_followers_per_run" in error["message"], error
    third.close()
    first.close()
    wait_open(tenant.server, 1)
    again = Stream(tenant, run_id, last)  # a place given back is there again
    assert again.status == 200

    # The token's third stream follows another run; a fourth is refused, on any run.
    other_run, other_last = paused_run(tenant, llm, tools, first=False)
    fourth = Stream(tenant, other_run, other_last)
    assert fourth.status == 200
    refused = Stream(tenant, other_run, other_last)
    assert refused.status == 429
    assert "max_streams_per_token" in refused.body_json()["error"]["message"]
    refused.close()
    # So is a streamed invoke, before its turn: plain JSON, no model call.
    calls = len(llm.requests)
    status, _, body = tenant.invoke("shop", {"message": "hello", "stream": True})
    assert status == 429 and body["error"]["code"] == "too_many_streams", body
    assert len(llm.requests) == calls
    # Another token of the organization has places of its own.
    ops = approver(tenant, permissions=("chat",))
    theirs = Stream(tenant, other_run, other_last, token=ops)
    assert theirs.status == 200
    for s in (second, again, fourth, theirs):
        s.close()
    wait_open(tenant.server, 0)


def follow_in_background(tenant, run_id, after, token=None):
    args = ["node", "sse_follow.mjs", "--base", f"http://{tenant.server.host}:{tenant.server.port}",
            "--path", f"/api/runs/{run_id}/events?last_event_id={after}", "--org", tenant.org,
            "--env", "prod", "--token", token or tenant.token, "--timeout-ms", "20000"]
    proc = subprocess.Popen(args, cwd=counterparts.counterparts_dir(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stderr.readline().strip() == "open"
    return proc


def ended_stream(proc):
    out, _ = proc.communicate(timeout=30)
    return json.loads(out.strip().splitlines()[-1])


def test_a_revoked_token_ends_its_stream_with_stream_ended_and_the_run_goes_on(
        start_server, llm, tools):
    tenant = start(start_server, llm)
    run_id, last = paused_run(tenant, llm, tools)
    proc = follow_in_background(tenant, run_id, last)
    wait_open(tenant.server, 1)
    revoked_at = time.monotonic()
    status, _, _ = tenant.server.admin("DELETE", f"/orgs/{tenant.org}/tokens/{tenant.token_id}")
    assert status == 200
    followed = ended_stream(proc)
    took = time.monotonic() - revoked_at
    assert followed["error"] is None, followed
    assert [e["type"] for e in followed["events"]] == ["stream.ended"], followed
    ended = followed["events"][0]
    assert ended["data"]["reason"] == "token_revoked" and ended["id"] == "", ended
    assert took < 3.0, took  # the server that revoked it sees it at once; its check runs 4 a second
    # The run goes on, waiting for its decision (another token reads it).
    ops = approver(tenant, permissions=("chat", "approve"))
    status, _, run = tenant.server.request("GET", f"/api/runs/{run_id}",
                                           headers={**headers(tenant), "fl-api-token": ops})
    assert status == 200 and run["status"] == "requires_action", run


def test_a_removed_grant_ends_its_stream_and_a_decision_wakes_the_others(start_server, llm, tools):
    tenant = start(start_server, llm)
    run_id, last = paused_run(tenant, llm, tools)
    viewer_token = approver(tenant, permissions=("chat",))
    viewer_id = next(t["id"] for t in tenant.server.admin("GET", f"/orgs/{tenant.org}/tokens")[2]["tokens"]
                     if t["id"] != tenant.token_id)
    owner = follow_in_background(tenant, run_id, last)
    viewer = follow_in_background(tenant, run_id, last, token=viewer_token)
    wait_open(tenant.server, 2)
    tenant.server.admin("PUT", f"/orgs/{tenant.org}/grants",
                        {"token_id": viewer_id, "agent_id": "shop", "permissions": []})
    followed = ended_stream(viewer)
    assert [e["type"] for e in followed["events"]] == ["stream.ended"], followed
    assert followed["events"][0]["data"]["reason"] == "access_removed"
    assert "'chat'" in followed["events"][0]["data"]["message"]
    wait_open(tenant.server, 1)  # the owner's stream goes on
    llm.push(openai_text("Refunded."))
    status, _, _ = decide(tenant, approver(tenant), run_id, [{"call_id": "call_0", "approve": True}],
                          background=True)
    assert status == 202
    # The owner's follower, waiting on the paused run, is woken by the run's own events.
    seen = ended_stream(owner)
    types = [e["type"] for e in seen["events"]]
    assert types[0] == "tool.started" and types[-1] == "run.completed", seen


@pytest.mark.postgres
def test_a_follower_on_another_server_gets_a_running_runs_events_as_they_are_written(
        start_server, llm, tools):
    """The run runs on the first server; its follower on the second hears of each write from the
    database (LISTEN/NOTIFY), not at a look a second."""
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY,
                                                "AGENTGATE_STORE_URL": first.store_url})
    tenant = Tenant(first)
    tenant.agent("shop", tools=[{**TOOL, "name": "status", "method": "GET",
                                 "url": f"http://127.0.0.1:{tools.port}/status"}])
    tools.delay = 4
    llm.push(openai_tools([("status", {"order": "A-1"})]), openai_text("It ships today."))
    # Streamed on the first server, where it runs; its run is in the store from its start.
    own = socket.create_connection((first.host, first.port), timeout=30)
    body = json.dumps({"message": "where is A-1?", "stream": True})
    lines = "".join(f"{k}: {v}\r\n" for k, v in headers(tenant).items())
    own.sendall((f"POST /api/agents/shop/invoke HTTP/1.1\r\nHost: x\r\n{lines}"
                 f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += own.recv(65536)
    location = next(line.split(": ", 1)[1] for line in head.decode().split("\r\n")
                    if line.lower().startswith("location: "))
    run_id = location.rsplit("/", 1)[1]
    follower = Stream(tenant.via(second), run_id, 0)
    try:
        assert follower.status == 200
        started = time.monotonic()
        text = follower.wait_for("event: tool.started", within=8.0)
        assert "event: run.started" in text
        # While the tool still works (4 s), not after the run.
        _, _, run = get_run(tenant.via(second), run_id)
        assert run["status"] == "running", run
        follower.wait_for("event: run.completed", within=15.0)
        assert time.monotonic() - started >= 3.0  # the tool's wait was in between
    finally:
        follower.close()
        own.close()
