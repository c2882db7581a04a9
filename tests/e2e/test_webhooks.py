"""Signed webhooks (docs/webhooks.md, SPEC §12): a receiver built on the Standard Webhooks
verifier (tests/counterparts, pinned) checks every delivery; a receiver that answers 500 twice
gets the same webhook-id three times; deliveries and their attempts are in the admin API; bad
registrations get a 4xx naming the field; a loopback URL is refused unless allowed."""
import socket
import threading
import time

import counterparts
from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text

ALLOW_PRIVATE = {"AGENTGATE_WEBHOOKS_ALLOW_PRIVATE": "true",
                 "AGENTGATE_WEBHOOKS_FIRST_RETRY_MILLISECONDS": "200"}


class Receiver(counterparts.LineReader):
    """webhook_receiver.mjs on `port`; `seen` fills as deliveries arrive."""

    def __init__(self, port, secret, answers="200"):
        super().__init__("webhook_receiver.mjs",
                         ["--port", str(port), "--secret", secret, "--answers", answers])


def start(start_server, llm, env=None):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, **(env or {})})
    tenant = Tenant(server)
    tenant.agent("bot")
    return tenant


def api_headers(tenant):
    return {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
            "fl-api-token": tenant.token}


def hooks_path(tenant):
    return f"/orgs/{tenant.org}/environments/prod/webhooks"


def register(tenant, url, events=None):
    body = {"url": url} if events is None else {"url": url, "events": events}
    return tenant.server.admin("POST", hooks_path(tenant), body)


def registered_receiver(tenant, answers="200", events=None):
    """A webhook registered for a free port, and the receiver started there with its secret."""
    port = counterparts.free_port()
    status, _, hook = register(tenant, f"http://127.0.0.1:{port}/hook", events)
    assert status == 201, (hook, [e for e in tenant.server.log_events() if e.get("level") != "info"])
    return hook, Receiver(port, hook["secret"], answers)


def deliveries(tenant, webhook_id):
    status, _, body = tenant.server.admin("GET", f"{hooks_path(tenant)}/{webhook_id}/deliveries")
    assert status == 200, body
    return body["deliveries"]


def background(tenant, message="hi"):
    status, _, body = tenant.server.request("POST", "/api/agents/bot/invoke",
                                            {"message": message, "background": True},
                                            headers=api_headers(tenant))
    assert status == 202, body
    return body["run_id"]


def test_a_background_runs_end_is_signed_retried_under_one_id_and_recorded(start_server, llm):
    tenant = start(start_server, llm, ALLOW_PRIVATE)
    hook, receiver = registered_receiver(tenant, answers="500,500,200")
    try:
        assert hook["secret"].startswith("whsec_")
        assert hook["events"] == ["run.completed", "run.failed", "run.canceled", "run.requires_action"]
        listed = tenant.server.admin("GET", hooks_path(tenant))[2]["webhooks"]
        assert [w["id"] for w in listed] == [hook["id"]] and "secret" not in listed[0]

        llm.push(openai_text("Done in the background."))
        run_id = background(tenant)
        seen = receiver.wait(3)
        # Every attempt verifies; a tampered body or a replay ten minutes on would not.
        assert all(s["verified"] for s in seen), seen
        assert all(s["tampered_rejected"] and s["old_rejected"] for s in seen), seen
        assert len({s["id"] for s in seen}) == 1  # one webhook-id across the retries
        assert [s["status"] for s in seen] == [500, 500, 200]
        body = seen[-1]["body"]
        assert body["type"] == "run.completed"
        assert body["data"]["run_id"] == run_id and body["data"]["status"] == "completed"
        run = tenant.server.request("GET", f"/api/runs/{run_id}", headers=api_headers(tenant))[2]
        assert body["data"]["result"] == run["result"]  # exactly the plain call's body
        time.sleep(0.5)
        assert len(receiver.seen) == 3  # delivered: no fourth attempt

        listed = deliveries(tenant, hook["id"])
        assert len(listed) == 1
        delivery = listed[0]
        assert delivery["id"] == seen[0]["id"] and delivery["status"] == "delivered"
        assert [a["status"] for a in delivery["attempts"]] == [500, 500, 200]
        assert delivery["attempts"][0]["error"] == "answered 500"
        assert delivery["next_attempt_at"] is None
    finally:
        receiver.close()


def test_a_webhook_gets_only_the_ends_it_asked_for_and_streamed_runs_only_when_asked(
        start_server, llm):
    tenant = start(start_server, llm, ALLOW_PRIVATE)
    failures, failures_receiver = registered_receiver(tenant, events=["run.failed"])
    everything, receiver = registered_receiver(tenant)
    try:
        llm.push(openai_text("Fine."))
        completed = background(tenant)
        receiver.wait(1)
        llm.push(dict(openai_text("Slow."), delay=5))
        canceled = background(tenant, "slow")
        time.sleep(0.3)
        status, _, run = tenant.server.request("POST", f"/api/runs/{canceled}/cancel",
                                               headers=api_headers(tenant))
        assert status == 200 and run["status"] == "canceled", run
        receiver.wait(2)
        assert [s["body"]["type"] for s in receiver.seen] == ["run.completed", "run.canceled"]
        assert [s["body"]["data"]["run_id"] for s in receiver.seen] == [completed, canceled]
        assert receiver.seen[1]["body"]["data"]["error"]["code"] == "canceled"

        # A streamed turn notifies only with "webhooks": true.
        for webhooks in (False, True):
            llm.push(openai_text("Streamed."))
            status, _, text = tenant.server.request(
                "POST", "/api/agents/bot/invoke",
                {"message": "hi", "stream": True, "webhooks": webhooks},
                headers=api_headers(tenant))
            assert status == 200 and "run.completed" in str(text), text
        receiver.wait(3)
        time.sleep(0.5)
        assert len(receiver.seen) == 3
        assert failures_receiver.seen == [] and deliveries(tenant, failures["id"]) == []

        # A plain call cannot ask for webhooks.
        status, _, body = tenant.server.request("POST", "/api/agents/bot/invoke",
                                                {"message": "hi", "webhooks": True},
                                                headers=api_headers(tenant))
        assert status == 400 and "webhooks" in error_of(body)["message"], body
        # Deleted: its deliveries go with it, and it gets no more.
        status, _, _ = tenant.server.admin("DELETE", f"{hooks_path(tenant)}/{everything['id']}")
        assert status == 200
        assert tenant.server.admin("GET", f"{hooks_path(tenant)}/{everything['id']}/deliveries")[0] == 404
    finally:
        receiver.close()
        failures_receiver.close()


def test_bad_registrations_name_their_field_and_loopback_needs_allow_private(start_server, llm):
    tenant = start(start_server, llm)  # [webhooks] allow_private is off
    for body, field in [({"url": "http://127.0.0.1:9/hook"}, "url"),
                        ({"url": "https://127.0.0.1:9/hook"}, "url"),
                        ({"url": "https://localhost/hook"}, "url"),
                        ({"url": "https://user:pw@hooks.example.com/"}, "url"),
                        ({"url": "hooks.example.com"}, "url"),
                        ({}, "url"),
                        ({"url": "https://hooks.example.com/", "events": ["run.started"]}, "events"),
                        ({"url": "https://hooks.example.com/", "events": []}, "events"),
                        ({"url": "https://hooks.example.com/", "secret": "mine"}, "secret")]:
        status, _, answer = tenant.server.admin("POST", hooks_path(tenant), body)
        assert status == 400, (body, answer)
        assert f"'{field}'" in error_of(answer)["message"], (body, answer)
    status, _, answer = tenant.server.admin(
        "POST", f"/orgs/{tenant.org}/environments/nowhere/webhooks", {"url": "https://h.example/"})
    assert status == 404, answer
    status, _, answer = tenant.server.admin("DELETE", f"{hooks_path(tenant)}/wh_missing")
    assert status == 404, answer
    # A public name is accepted; a delivery to a name that resolves to loopback is refused at send
    # time (checked on the addresses connected to), recorded as an attempt that failed.
    status, _, hook = register(tenant, "https://hooks.example.com/agentgate")
    assert status == 201 and hook["url"] == "https://hooks.example.com/agentgate", hook


class Hanging:
    """An endpoint that accepts every connection and never answers."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(512)
        self.port = self.sock.getsockname()[1]
        self.held = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self):
        self.sock.close()
        for conn in self.held:
            conn.close()


def test_a_hanging_endpoint_delays_no_other_organizations_delivery(start_server, llm):
    """Issue 57 §2: 60 deliveries due to one tenant's endpoint that never answers, and another
    organization's delivery still arrives within 2 s of its run's end (it waited behind the
    flood's 10 s attempts before)."""
    tenant = start(start_server, llm, ALLOW_PRIVATE)
    hanging = Hanging()
    other = Tenant(tenant.server, org="beta")
    other.agent("bot")
    hook, receiver = registered_receiver(other)
    try:
        status, _, dead = register(tenant, f"http://127.0.0.1:{hanging.port}/hook")
        assert status == 201, dead
        for i in range(60):
            llm.push(openai_text(f"Flood {i}."))
            background(tenant, f"flood {i}")
        deadline = time.monotonic() + 20
        while True:
            status, _, listed = tenant.server.admin(
                "GET", f"{hooks_path(tenant)}/{dead['id']}/deliveries?limit=100")
            if len(listed["deliveries"]) == 60 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert len(listed["deliveries"]) == 60, listed
        wait_for_held(hanging, 1)  # the flood's attempts are under way

        llm.push(openai_text("Mine."))
        run_id = background(other, "mine")
        deadline = time.monotonic() + 10
        while True:
            _, _, run = other.server.request("GET", f"/api/runs/{run_id}",
                                             headers=api_headers(other))
            if run["status"] == "completed" or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        assert run["status"] == "completed", run
        seen = receiver.wait(1, within=2.0)
        assert seen[0]["body"]["data"]["run_id"] == run_id and seen[0]["verified"]
        # The dead endpoint's deliveries wait their turn, none given up.
        _, _, listed = tenant.server.admin(
            "GET", f"{hooks_path(tenant)}/{dead['id']}/deliveries?limit=100")
        assert {d["status"] for d in listed["deliveries"]} == {"pending"}, listed
    finally:
        receiver.close()
        hanging.close()


def wait_for_held(hanging, count, within=10.0):
    deadline = time.monotonic() + within
    while len(hanging.held) < count:
        assert time.monotonic() < deadline, len(hanging.held)
        time.sleep(0.02)
