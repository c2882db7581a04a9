"""What a failed or dead server held is released in seconds, not at the turn cap (SPEC §5 outcomes,
runs issue §5): a turn that failed on a full disk leaves no ticket that holds up its
conversation, and a server killed with -9 has its conversations' places and its Idempotency-Keys
freed for the other servers within 5 s."""
import os
import signal
import subprocess
import threading
import time

import pytest

import counterparts
import stores
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text
from test_webhooks import Receiver


def invoke(tenant, body, headers=None, timeout=30):
    return tenant.invoke("bot", body, timeout=timeout, headers=headers)


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MB tmpfs: the store's disk fills after a few turns."""
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], check=True)
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


@pytest.mark.skipif(stores.KIND != "sqlite", reason="fills a SQLite store's disk (the SQLite pass)")
def test_a_turn_that_failed_on_a_full_disk_leaves_its_conversation_free(start_server, llm, small_disk):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY,
                                                "AGENTGATE_STORE_URL": f"sqlite:{small_disk}/agentgate.db"})
    tenant = Tenant(server)
    tenant.agent("bot")
    status, _, first = invoke(tenant, {"message": "start", "stateful": True})
    assert status == 200, first
    conversation = first["conversation_id"]
    # Most of what is left goes to a file of its own, so the store runs out within a few turns.
    filler = small_disk / "filler"
    free = os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, free - 512 * 1024))
    # Turns keep coming while the disk is full: each is answered at once, 200 or a clean 503
    # (a turn that hung behind a failed one's ticket would time out here).
    answered, refused = 0, 0
    for i in range(40):
        status, _, body = invoke(tenant, {"message": f"turn {i} " + "x" * 30 * 1024, "stateful": True,
                                          "conversation_id": conversation}, timeout=10)
        assert status in (200, 503), body  # never a 500
        answered, refused = answered + (status == 200), refused + (status == 503)
    assert refused >= 30, "the disk never filled"

    filler.unlink()  # space is back
    started = time.monotonic()
    status, _, after = invoke(tenant, {"message": "still there?", "stateful": True,
                                       "conversation_id": conversation}, timeout=10)
    assert status == 200, after
    assert time.monotonic() - started < 2.0  # not held up by a failed turn's ticket for 120 s
    messages = server.admin("GET", f"/orgs/{tenant.org}/conversations/{conversation}")[2]["messages"]
    assert len(messages) == 2 * (1 + answered + 1)  # every answered turn, and nothing of a refused one


@pytest.mark.postgres
def test_a_killed_servers_conversations_and_keys_are_free_on_the_other_within_5_s(start_server, llm):
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY,
                                                "AGENTGATE_STORE_URL": first.store_url})
    tenant = Tenant(first)
    tenant.agent("bot")
    status, _, started = invoke(tenant, {"message": "start", "stateful": True})
    assert status == 200
    conversation = started["conversation_id"]

    # On the first server: a turn holding the conversation's place and an Idempotency-Key, its
    # model slow to answer; then the server dies.
    llm.push(dict(openai_text("never seen"), delay=60))
    held = {"message": "slow", "stateful": True, "conversation_id": conversation}
    key = {"Idempotency-Key": "order-42"}
    seen = len(llm.requests)

    def held_call():
        try:
            invoke(tenant, held, headers=key, timeout=5)
        except OSError:
            pass  # its server is killed under it

    threading.Thread(target=held_call, daemon=True).start()
    deadline = time.monotonic() + 5
    while len(llm.requests) == seen and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(llm.requests) > seen, "the held turn never reached the model"
    first.stop(signal.SIGKILL)
    killed = time.monotonic()

    other = tenant.via(second)
    status, _, answer = invoke(other, {"message": "after the crash", "stateful": True,
                                       "conversation_id": conversation}, timeout=10)
    assert status == 200, answer
    status, _, keyed = invoke(other, held, headers=key, timeout=10)
    assert status == 200, keyed  # the dead server's claim is gone: the call runs, no 409
    assert time.monotonic() - killed < 5.0


@pytest.mark.postgres
def test_a_killed_servers_runs_end_interrupted_on_the_other_and_are_not_run_again(start_server, llm):
    webhooks = {"AGENTGATE_WEBHOOKS_ALLOW_PRIVATE": "true"}
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, **webhooks})
    # The second looks for queued runs rarely: the run below is the first server's.
    second = start_server(config_for(llm) + "\n[runs]\npoll_milliseconds = 60000\n",
                          env={"FAKE_LLM_KEY": API_KEY, "AGENTGATE_STORE_URL": first.store_url,
                               **webhooks})
    tenant = Tenant(first)
    tenant.agent("bot")
    receiver_port = counterparts.free_port()
    status, _, hook = first.admin("POST", f"/orgs/{tenant.org}/environments/prod/webhooks",
                                  {"url": f"http://127.0.0.1:{receiver_port}/hook"})
    assert status == 201, hook
    receiver = Receiver(receiver_port, hook["secret"])
    llm.push(dict(openai_text("never seen"), delay=60))
    status, _, queued = invoke(tenant, {"message": "slow", "background": True})
    assert status == 202, queued
    deadline = time.monotonic() + 5
    while not llm.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    assert llm.requests, "the run never reached the model"
    first.stop(signal.SIGKILL)
    killed = time.monotonic()

    other = tenant.via(second)
    h = {"fl-api-org": tenant.org, "fl-api-env": "prod", "fl-api-token": tenant.token}
    while True:
        status, _, run = second.request("GET", f"/api/runs/{queued['run_id']}", headers=h)
        assert status == 200, run
        if run["status"] != "running" or time.monotonic() - killed > 10:
            break
        time.sleep(0.05)
    assert run["status"] == "failed" and run["error"]["code"] == "interrupted", run
    assert time.monotonic() - killed < 5.0
    status, _, raw = second.request("GET", f"/api/runs/{queued['run_id']}/events", headers=h)
    assert status == 200 and raw.count("event: run.failed") == 1 and '"code":"interrupted"' in raw
    time.sleep(0.5)
    assert len(llm.requests) == 1  # never run again
    assert other.settled_usage(within=5)["total_reserved_usd"] == 0
    # Its webhook hears of it once, from the server that ended it.
    try:
        seen = receiver.wait(1)
        time.sleep(1.5)
        assert len(receiver.seen) == 1, receiver.seen
        assert seen[0]["verified"] and seen[0]["body"]["type"] == "run.failed"
        assert seen[0]["body"]["data"]["error"]["code"] == "interrupted"
    finally:
        receiver.close()
