"""Three agentgate servers on one PostgreSQL database behind a real nginx, set up as
docs/deployment.md tells operators (shared secrets read from files, the docs' nginx block): the
governance and gateway concurrency guarantees hold for calls the balancer spreads over all three,
and a server killed mid-turn loses nothing committed while its idempotency claim and its place in
the conversation are released after the turn cap."""
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import stores
from balancer import Nginx
from conftest import ADMIN_TOKEN, MASTER_KEY
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text
from fakes.fake_salesforce import FakeSalesforce
from gateway_harness import Gateway

pytestmark = pytest.mark.postgres

TURN_CAP = 4  # seconds: short, so the kill test can wait it out
SERVERS = 3


class Cluster:
    def __init__(self, start_server, tmp_path, config):
        url = stores.with_schema(stores.POSTGRES_URL, stores.create_schema("lb"))
        # Every server reads the same admin token and master key from files (docs/deployment.md).
        secrets = tmp_path / "secrets"
        secrets.mkdir()
        (secrets / "admin.token").write_text(ADMIN_TOKEN + "\n")
        (secrets / "master.key").write_text(MASTER_KEY + "\n")
        self.start_server = start_server
        self.config = config + f"""
[admin]
token_file = "{secrets / 'admin.token'}"

[secrets]
master_key_file = "{secrets / 'master.key'}"
"""
        self.env = {"FAKE_LLM_KEY": API_KEY, "AGENTGATE_STORE_URL": url,
                    "AGENTGATE_ADMIN_TOKEN": "", "AGENTGATE_MASTER_KEY": ""}
        self.servers = [start_server(self.config, env=self.env, args=()) for _ in range(SERVERS)]
        (tmp_path / "nginx").mkdir()
        self.lb = Nginx(tmp_path / "nginx", [s.address for s in self.servers])

    def replace(self, i):
        """A new server where server i listened (its successor in a rolling restart)."""
        address = self.servers[i].address
        self.servers[i] = self.start_server(self.config, env=dict(self.env, AGENTGATE_SERVER_LISTEN=address), args=())
        return self.servers[i]

    def spread(self, uri_part):
        """Asserts every server answered some of these calls, so the test crossed servers."""
        counts = self.lb.served_by(uri_part)
        assert sorted(counts) == sorted(s.address for s in self.servers), counts
        return counts


@pytest.fixture
def cluster(llm, start_server, tmp_path):
    extra = f"turn_timeout_seconds = {TURN_CAP}\nanswer_early_seconds = {TURN_CAP - 1}"
    c = Cluster(start_server, tmp_path, config_for(llm, server_extra=extra))
    yield c
    c.lb.close()


def parallel(n, fn):
    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(fn, range(n)))


def test_governance_holds_for_calls_spread_by_nginx(cluster, llm):
    tenant = Tenant(cluster.lb)  # the admin calls are spread too
    tenant.agent("bot")
    tenant.agent("chatty", provider="offline", model="offline-1")
    tenant.agent("bulk", model_settings={"max_output_tokens": 100})

    llm.push(dict(openai_text("once across servers"), delay=1.0))
    barrier = threading.Barrier(8)

    def pay(i):
        barrier.wait()
        return tenant.invoke("bot", {"message": "pay"}, headers={"idempotency-key": "lb-key"})

    assert sorted(r[0] for r in parallel(8, pay)) == [200] + [409] * 7 and len(llm.requests) == 1
    status, headers, body = tenant.invoke("bot", {"message": "pay"}, headers={"idempotency-key": "lb-key"})
    assert status == 200 and headers["idempotent-replayed"] == "true" and body["response"] == "once across servers"

    _, _, convo = tenant.invoke("chatty", {"message": "hi", "stateful": True})
    cid = convo["conversation_id"]
    batches = parallel(8, lambda i: [tenant.invoke("chatty", {"message": f"{i}-{j}", "stateful": True,
                                                              "conversation_id": cid})[0] for j in range(27)])
    statuses = [s for batch in batches for s in batch]
    assert statuses.count(200) == 199 and statuses.count(429) == len(statuses) - 199
    assert len(tenant.conversation(cid)[2]["messages"]) == 2 * 200

    tenant.server.admin("PATCH", "/orgs/acme", {"monthly_spend_limit_usd": 1.0})
    llm.reset()
    for _ in range(40):
        llm.push(dict(openai_text("ok", input_tokens=20, output_tokens=100), delay=0.2))  # $0.22 each
    results = parallel(20, lambda i: tenant.invoke("bulk", {"message": "go"}))
    ok = sum(1 for r in results if r[0] == 200)
    assert ok + sum(1 for r in results if r[0] == 402) == 20 and ok == len(llm.requests)
    _, _, usage = tenant.server.admin("GET", "/orgs/acme/usage")
    assert usage["total_spent_usd"] <= 1.0 + 0.23  # one call's worst case: ~28 tokens in, 100 out
    assert tenant.settled_usage()["total_reserved_usd"] == 0

    counts = cluster.spread("/invoke")
    assert min(counts.values()) >= 40, counts


def test_a_rotating_crm_credential_is_refreshed_once_for_calls_spread_by_nginx(cluster):
    org = FakeSalesforce()
    try:
        org.rotate = True  # a second refresh with a used token fails invalid_grant
        gw = Gateway(cluster.lb, org)
        for round_ in (1, 2):
            barrier = threading.Barrier(20)

            def call(i):
                barrier.wait()
                return gw.call({"method": "GET", "path": "sobjects"})

            results = parallel(20, call)
            assert all(r[0] == 200 and r[2]["ok"] for r in results), [r[2] for r in results if r[0] != 200][:2]
            assert org.refreshes == round_
            org.expire_tokens()  # the next round needs the token the first refresh rotated in
        cluster.spread("/api/metadata-gateway")
    finally:
        org.close()


def test_a_server_killed_mid_turn_loses_nothing_committed(cluster, llm):
    tenant = Tenant(cluster.lb)
    tenant.agent("bot")
    llm.push(openai_text("first answer"), openai_text("second answer"))
    _, _, first = tenant.invoke("bot", {"message": "one", "stateful": True})
    cid = first["conversation_id"]
    assert tenant.invoke("bot", {"message": "two", "stateful": True, "conversation_id": cid})[0] == 200

    # A turn on server A holds an idempotency claim and the conversation's turn; A dies mid-call.
    victim, survivor = cluster.servers[0], cluster.servers[1]
    llm.push(dict(openai_text("never delivered"), delay=30))
    seen = len(llm.requests)
    doomed = {"message": "three", "stateful": True, "conversation_id": cid}
    outcome = []

    def call_the_victim():
        try:
            outcome.append(tenant.via(victim).invoke("bot", doomed, headers={"idempotency-key": "k-1"}))
        except ConnectionError as e:  # what a caller of a killed server sees
            outcome.append(e)

    caller = threading.Thread(target=call_the_victim)
    caller.start()
    deadline = time.monotonic() + 5
    while len(llm.requests) == seen and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(llm.requests) == seen + 1, "the turn never reached the model"
    killed_at = time.monotonic()
    victim.stop(signal.SIGKILL)
    caller.join(5)
    assert len(outcome) == 1 and isinstance(outcome[0], ConnectionError), outcome

    # nginx moves every call to the survivor. The dead turn's claim holds while the dead server's
    # liveness lease does (3 s after its last renewal, at most a second before the kill).
    status, _, body = tenant.invoke("bot", doomed, headers={"idempotency-key": "k-1"})
    assert status == 409 and body["error"]["code"] == "idempotency_key_in_use"
    # Then the survivor releases what the dead server held: the next turn on the conversation waits
    # for the dead turn's place only that long, and the key runs once, within 5 s of the kill. (The
    # next turn is sent a little later: this cluster's cap is 4 s, and a turn that waits longer
    # than its own cap is a 504.)
    time.sleep(TURN_CAP / 2)
    llm.push(openai_text("after the crash"))
    status, _, body = tenant.invoke("bot", {"message": "four", "stateful": True, "conversation_id": cid})
    assert status == 200 and body["response"] == "after the crash", body
    llm.push(openai_text("third answer, at last"))
    status, headers, body = tenant.invoke("bot", doomed, headers={"idempotency-key": "k-1"})
    assert status == 200 and "idempotent-replayed" not in headers and body["response"] == "third answer, at last"
    assert time.monotonic() - killed_at < 5.0

    _, _, transcript = survivor.admin("GET", f"/orgs/acme/conversations/{cid}")
    said = [(m["role"], m["content"]) for m in transcript["messages"]]
    assert said == [("user", "one"), ("assistant", "first answer"), ("user", "two"), ("assistant", "second answer"),
                    ("user", "four"), ("assistant", "after the crash"),
                    ("user", "three"), ("assistant", "third answer, at last")]
    assert survivor.request("GET", "/readyz")[0] == 200


def test_a_rolling_restart_behind_nginx_fails_no_call(cluster, llm):
    tenant = Tenant(cluster.lb)
    tenant.agent("chatty", provider="offline", model="offline-1")
    tenant.agent("bot")
    statuses, stop = [], threading.Event()

    def traffic():
        while not stop.is_set():
            statuses.append(tenant.invoke("chatty", {"message": "steady"})[0])

    workers = [threading.Thread(target=traffic) for _ in range(3)]
    for w in workers:
        w.start()
    time.sleep(0.3)
    for i, old in enumerate(list(cluster.servers)):
        # A turn is running on the server when it is told to stop: it finishes, then the server exits.
        llm.push(dict(openai_text(f"finished on {i}"), delay=1.0))
        seen, running = len(llm.requests), []
        slow = threading.Thread(target=lambda: running.append(tenant.via(old).invoke("bot", {"message": "slow"})))
        slow.start()
        while len(llm.requests) == seen:
            time.sleep(0.01)
        assert old.stop(signal.SIGTERM) == 0
        slow.join()
        assert running[0][0] == 200 and running[0][2]["response"] == f"finished on {i}", running
        cluster.replace(i)
        time.sleep(0.3)
    stop.set()
    for w in workers:
        w.join()
    assert len(statuses) > 50 and set(statuses) == {200}, {s: statuses.count(s) for s in set(statuses)}
    for s in cluster.servers:  # every new server took traffic once back
        assert any(e.get("route") == "/api/agents/{agent_id}/invoke" for e in s.log_events() if e["event"] == "http_request")
