"""The PostgreSQL store when the database itself restarts or goes away (SPEC §2): a server keeps
serving across a restart, answers 503 while the database is down, and recovers on its own. Runs
in the PostgreSQL pass of the suite, on a cluster of its own so the shared one is not disturbed."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import stores
from conftest import error_of
from daemon_harness import Tenant
from fakes.fake_salesforce import FakeSalesforce
from gateway_harness import Gateway

pytestmark = pytest.mark.postgres


@pytest.fixture
def private_pg():
    pg = stores.PrivatePostgres()
    yield pg
    pg.close()


def test_a_database_restart_is_survived_and_an_outage_is_a_503(private_pg, start_server):
    s = start_server(env={"AGENTGATE_STORE_URL": private_pg.url})
    # The database lists our sessions under our name, so an operator can find (or end) them.
    names = stores.psql(private_pg.url, "SELECT DISTINCT application_name FROM pg_stat_activity "
                                        "WHERE datname = current_database() AND pid <> pg_backend_pid()")
    assert names.split() == ["agentgate"], names
    tenant = Tenant(s)
    tenant.agent("chatty", provider="offline", model="offline-1")
    _, _, first = tenant.invoke("chatty", {"message": "before", "stateful": True})
    cid = first["conversation_id"]

    # Turns keep arriving while the database restarts: each one is answered or refused with a
    # retriable 503, never a 500 or a hang.
    statuses, stop = [], threading.Event()

    def traffic():
        while not stop.is_set():
            statuses.append(tenant.invoke("chatty", {"message": "during"})[0])

    background = threading.Thread(target=traffic)
    background.start()
    private_pg.restart()
    stop.set()
    background.join()
    assert statuses and set(statuses) <= {200, 503}, statuses

    # Every pooled connection was closed by the restart; callers afterwards never notice.
    with ThreadPoolExecutor(max_workers=4) as pool:
        after = list(pool.map(lambda i: tenant.invoke("chatty", {"message": f"after {i}"})[0], range(24)))
    assert after == [200] * 24
    status, _, body = tenant.invoke("chatty", {"message": "again", "stateful": True, "conversation_id": cid})
    assert status == 200, body
    assert [m["content"] for m in tenant.conversation(cid)[2]["messages"] if m["role"] == "user"] == ["before", "again"]

    org = FakeSalesforce()
    gateway = Gateway(s, org, static=True)
    assert gateway.call({"method": "GET", "path": "sobjects"})[2]["ok"]

    private_pg.stop()
    # A cached session's call needs no store for the 1 s its tenant reads stay fresh; past that,
    # the gateway's envelope says the same: 503 unavailable, retry; not FL04, not a 500.
    time.sleep(1.1)
    status, headers, body = gateway.call({"method": "GET", "path": "sobjects"})
    org.close()
    assert status == 503 and body["ok"] is False and body["error"]["code"] == "unavailable", body
    assert headers["retry-after"] == "1" and str(private_pg.port) not in body["error"]["message"]
    status, headers, body = tenant.invoke("chatty", {"message": "down"})
    assert status == 503 and error_of(body)["code"] == "unavailable" and headers["retry-after"] == "1"
    assert "127.0.0.1" not in body["error"]["message"] and str(private_pg.port) not in body["error"]["message"]
    assert s.request("GET", "/readyz")[0] == 503
    assert s.logged(lambda e: e["event"] == "store_error")  # the detail is for the operator

    private_pg.start()
    assert s.request("GET", "/readyz")[0] == 200
    assert tenant.invoke("chatty", {"message": "back"})[0] == 200


def test_a_database_that_never_answers_fails_start_up_within_the_connect_timeout(tmp_path):
    """A listener that accepts and stays silent (a black-holed database): the server gives up after
    the 5 s connect timeout and says why, instead of hanging."""
    import socket
    import subprocess
    import time
    from conftest import BINARY, MASTER_KEY
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    url = f"postgresql://agentgate:secret-pw@127.0.0.1:{silent.getsockname()[1]}/agentgate"
    started = time.monotonic()
    proc = subprocess.run([BINARY, "serve"], capture_output=True, text=True, timeout=30, cwd=tmp_path,
                          env={"AGENTGATE_STORE_URL": url, "AGENTGATE_SERVER_LISTEN": "127.0.0.1:0",
                               "AGENTGATE_MASTER_KEY": MASTER_KEY})
    elapsed = time.monotonic() - started
    silent.close()
    assert proc.returncode != 0 and "cannot connect to PostgreSQL" in proc.stderr, proc.stderr
    assert 4 <= elapsed < 15, elapsed
    assert "secret-pw" not in proc.stderr + proc.stdout
