"""Two agentgate servers on one PostgreSQL database behave as one service (SPEC §2): the
idempotency claim, the conversation window and the admin state are shared through the database."""
import os
import subprocess
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text

URL = os.environ.get("AGENTGATE_TEST_POSTGRES_URL", "")
pytestmark = pytest.mark.skipif(not URL, reason="no PostgreSQL: set AGENTGATE_TEST_POSTGRES_URL (make test does)")


@pytest.fixture
def pg_url():
    schema = "e2e_" + uuid.uuid4().hex[:12]
    subprocess.run(["psql", URL, "-qc", f"CREATE SCHEMA {schema}"], check=True, capture_output=True)
    yield URL + ("&" if "?" in URL else "?") + f"options=-csearch_path%3D{schema}"
    subprocess.run(["psql", URL, "-qc", f"DROP SCHEMA {schema} CASCADE"], capture_output=True)




def test_two_servers_on_one_postgresql_database_behave_as_one(pg_url, llm, start_server):
    env = {"FAKE_LLM_KEY": API_KEY, "AGENTGATE_STORE_URL": pg_url}
    first = start_server(config_for(llm), env=env)
    second = start_server(config_for(llm), env=env)
    tenant = Tenant(first)
    tenant.agent("bot")
    tenant.agent("chatty", provider="offline", model="offline-1")
    other = tenant.via(second)
    servers = [tenant, other]

    llm.push(dict(openai_text("once across servers"), delay=1.0))
    barrier = threading.Barrier(6)

    def pay(i):
        barrier.wait()
        return servers[i % 2].invoke("bot", {"message": "pay"}, headers={"idempotency-key": "pg-key"})

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(pay, range(6)))
    assert sorted(r[0] for r in results) == [200] + [409] * 5 and len(llm.requests) == 1
    status, headers, _ = other.invoke("bot", {"message": "pay"}, headers={"idempotency-key": "pg-key"})
    assert status == 200 and headers["idempotent-replayed"] == "true"

    _, _, convo = tenant.invoke("chatty", {"message": "hi", "stateful": True})
    cid = convo["conversation_id"]
    with ThreadPoolExecutor(max_workers=8) as pool:
        batches = list(pool.map(lambda i: [servers[(i + j) % 2].invoke(
            "chatty", {"message": f"{i}-{j}", "stateful": True, "conversation_id": cid}) for j in range(27)], range(8)))
    statuses = [r[0] for batch in batches for r in batch]
    assert statuses.count(200) == 199 and statuses.count(429) == len(statuses) - 199
    _, _, transcript = second.admin("GET", f"/orgs/acme/conversations/{cid}")
    assert len(transcript["messages"]) == 2 * 200
