"""Organizations share the background runs fairly (docs/runs.md, "Fair shares"; issue 72 §4):
claims take organizations in turn and hold each to its share of the runs running across servers,
so one organization's backlog never delays another's run by more than a provider call; and a call
that may pause counts against its organization's waiting runs, as a queued run does."""
import datetime

import pytest

from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text
from test_approvals import pause_a_refund, shop, tools  # noqa: F401  (tools: a fixture)
from test_runs import wait_status

SLOW = 1.0  # each model call's time
RUNS = "\n[runs]\nmax_concurrent = 4\n"  # so each organization's share is 3


def at(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def queue(tenant, n):
    ids = []
    for i in range(n):
        status, _, body = tenant.invoke("bot", {"message": f"job {i}", "background": True})
        assert status == 202, body
        ids.append(body["run_id"])
    return ids


def most_at_once(runs):
    """The most of these runs that were running at the same moment, from their start and end."""
    edges = sorted([(at(r["started_at"]), 1) for r in runs] + [(at(r["ended_at"]), -1) for r in runs])
    running = most = 0
    for _, step in edges:
        running += step
        most = max(most, running)
    return most


def backlog_and_one(llm, servers):
    """One organization's 24 slow runs, then another's one: the other's run's wait and the first's runs."""
    big, small = Tenant(servers[0], "big"), Tenant(servers[0], "small")
    big.agent("bot")
    small.agent("bot")
    llm.push(*[{**openai_text("done"), "delay": SLOW} for _ in range(30)])
    backlog = queue(big, 24)
    mine = queue(small, 1)[0]
    run = wait_status(small, mine, {"completed", "failed"}, within=30)
    assert run["status"] == "completed", run
    waited = at(run["started_at"]) - at(run["created_at"])
    # Oldest-first across organizations, it waited for 24 / 3 model calls (8 s); now for none. The
    # times are whole seconds: a start a moment after its queueing can read as a second later.
    assert waited <= SLOW + 1.0, (waited, run)
    return big, [wait_status(big, r, {"completed", "failed"}, within=60) for r in backlog]


@pytest.mark.both_stores
def test_one_organizations_backlog_does_not_delay_anothers_run(start_server, llm):
    server = start_server(config_for(llm) + RUNS, env={"FAKE_LLM_KEY": API_KEY})
    _, runs = backlog_and_one(llm, [server])
    assert all(r["status"] == "completed" for r in runs), runs
    assert most_at_once(runs) <= 3  # its share: ceil(3/4 x max_concurrent)


@pytest.mark.postgres
def test_the_share_holds_across_servers_sharing_the_store(start_server, llm):
    first = start_server(config_for(llm) + RUNS, env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm) + RUNS,
                          env={"FAKE_LLM_KEY": API_KEY, "AGENTGATE_STORE_URL": first.store_url})
    _, runs = backlog_and_one(llm, [first, second])
    assert all(r["status"] == "completed" for r in runs), runs
    # Its share across both servers, and each server may start one claim batch past it.
    assert most_at_once(runs) <= 3 + 2 * 4, most_at_once(runs)


def test_a_call_that_may_pause_counts_the_organizations_waiting_runs(start_server, llm, tools):
    server = start_server(config_for(llm) + "\n[runs]\nmax_queued_per_org = 2\n",
                          env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    shop(tenant, tools)
    tenant.agent("bot")  # no tool needs approval: it never pauses
    for _ in range(2):
        assert pause_a_refund(tenant, llm)["terminated_reason"] == "approval_required"
    asked = len(llm.requests)
    status, head, body = tenant.invoke("shop", {"message": "refund A-2"})
    assert status == 429 and error_of(body)["code"] == "queue_full", body
    assert head["retry-after"] == "1" and "max_queued_per_org" in error_of(body)["message"]
    assert len(llm.requests) == asked  # refused before any model call
    llm.push(openai_text("fine"))
    status, _, body = tenant.invoke("bot", {"message": "hi"})
    assert status == 200, body
    # A decision frees a place.
    from test_approvals import approver, decide
    _, _, runs = server.admin("GET", f"/orgs/{tenant.org}/environments/prod/runs")
    paused = [r["run_id"] for r in runs["runs"] if r["status"] == "requires_action"]
    assert len(paused) == 2, runs
    llm.push(openai_text("Refunded."))
    status, _, _ = decide(tenant, approver(tenant), paused[0],
                          [{"call_id": "call_0", "approve": False}])
    assert status == 200
    assert pause_a_refund(tenant, llm)["terminated_reason"] == "approval_required"
