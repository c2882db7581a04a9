"""Long-term memory (shared-memory agents): recall searches every fact of the group with the
store's full-text index, and operators list and delete facts. Runs on both stores."""
import pytest

import stores
from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text


pytestmark = pytest.mark.both_stores  # what the store itself decides (conftest.py)


@pytest.fixture
def daemon(llm, start_server):
    llm.reset()
    return Tenant(start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY}))


def seed(daemon, agent, count, group=""):
    """`count` newer facts that say nothing useful, written to the store directly."""
    stores.execute(daemon.server.store_url, f"""
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {count})
        INSERT INTO memories(org_id, env, agent_id, group_key, fact, created_at_ms)
        SELECT 'acme', 'prod', '{agent}', '{group}', 'Shipping note ' || i || ': boxes leave on Friday', 1000 + i
        FROM n;""")


def system_prompt(llm):
    return llm.requests[-1]["body"]["messages"][0]["content"]


def test_an_old_fact_is_recalled_among_thousands(daemon, llm):
    daemon.agent("helper", memory="shared")
    stores.execute(daemon.server.store_url, """
        INSERT INTO memories(org_id, env, agent_id, group_key, fact, created_at_ms)
        VALUES ('acme', 'prod', 'helper', '', 'The VAT number of Acme GmbH is DE123456789', 1);""")
    seed(daemon, "helper", 5000)
    llm.push(openai_text("It is DE123456789."))
    assert daemon.invoke("helper", {"message": "What is Acme's VAT number?"})[0] == 200
    assert "DE123456789" in system_prompt(llm)
    assert "Shipping note" not in system_prompt(llm)  # only what matches
    # Nothing matches: the newest facts are shown, as before.
    llm.push(openai_text("ok"))
    daemon.invoke("helper", {"message": "zebra?"})
    assert "Shipping note 5000" in system_prompt(llm)


def test_operators_list_and_delete_a_wrong_fact(daemon, llm):
    daemon.agent("helper", memory="shared")
    stores.execute(daemon.server.store_url, """
        INSERT INTO memories(org_id, env, agent_id, group_key, fact, created_at_ms)
        VALUES ('acme', 'prod', 'helper', 'cust-1', 'The customer prefers fax', 1);""")
    seed(daemon, "helper", 3, group="cust-1")
    seed(daemon, "helper", 2, group="cust-2")
    status, _, page = daemon.server.admin("GET", "/orgs/acme/memories?agent=helper&group_key=cust-1&limit=2")
    assert status == 200 and [m["fact"] for m in page["memories"]] == [
        "Shipping note 3: boxes leave on Friday", "Shipping note 2: boxes leave on Friday"]
    assert page["memories"][0]["group_key"] == "cust-1" and page["memories"][0]["env"] == "prod"
    _, _, rest = daemon.server.admin(
        "GET", f"/orgs/acme/memories?agent=helper&group_key=cust-1&limit=2&before={page['next_before']}")
    assert [m["fact"] for m in rest["memories"]][-1] == "The customer prefers fax"
    wrong = rest["memories"][-1]["id"]

    llm.push(openai_text("By fax."))
    daemon.invoke("helper", {"message": "how does the customer prefer contact?", "group_key": "cust-1"})
    assert "prefers fax" in system_prompt(llm)
    assert daemon.server.admin("DELETE", f"/orgs/acme/memories/{wrong}")[2] == {"deleted": 1}
    assert daemon.server.admin("DELETE", f"/orgs/acme/memories/{wrong}")[0] == 404
    llm.push(openai_text("No idea."))
    daemon.invoke("helper", {"message": "how does the customer prefer contact?", "group_key": "cust-1"})
    assert "prefers fax" not in system_prompt(llm)

    assert daemon.server.admin("DELETE", "/orgs/acme/memories?agent=helper&group_key=cust-2")[2] == {"deleted": 2}
    _, _, left = daemon.server.admin("GET", "/orgs/acme/memories?agent=helper")
    assert len(left["memories"]) == 3 and left["next_before"] is None

    for path, field in (("/orgs/acme/memories", "agent"), ("/orgs/acme/memories?agent=helper&limit=0", "limit"),
                        ("/orgs/acme/memories?agent=helper&before=x", "before"),
                        ("/orgs/acme/memories?agent=helper&group_key=bad%20key", "group_key")):
        status, _, body = daemon.server.admin("GET", path)
        assert status == 400 and f"'{field}'" in error_of(body)["message"], (path, body)
    assert daemon.server.admin("DELETE", "/orgs/acme/memories")[0] == 400  # no agent: not everything
    assert daemon.server.admin("GET", "/orgs/nope/memories?agent=helper")[0] == 404
