"""Call governance through the binary: Idempotency-Key, the conversation call window, monthly spend.
Concurrency tests assert exact outcomes, with one server and with two sharing one SQLite file."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import stores
from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text

pytestmark = pytest.mark.both_stores  # what the store itself decides (conftest.py)


@pytest.fixture
def gov(llm, start_server):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    return Tenant(server)


@pytest.fixture
def two_servers(llm, start_server):
    """The acme tenant on one server, and the same tenant through a second server on its store."""
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, "AGENTGATE_STORE_URL": first.store_url})
    tenant = Tenant(first)
    return tenant, tenant.via(second)


def parallel(n, fn):
    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(lambda i: fn(i), range(n)))


def test_concurrent_duplicates_start_exactly_one_turn(gov, llm):
    gov.agent("bot")
    llm.push(dict(openai_text("only once"), delay=1.0))
    results = parallel(8, lambda i: gov.invoke("bot", {"message": "pay invoice 7"}, headers={"idempotency-key": "inv-7"}))
    statuses = sorted(r[0] for r in results)
    assert statuses == [200] + [409] * 7
    conflict = next(r for r in results if r[0] == 409)
    assert error_of(conflict[2])["code"] == "idempotency_key_in_use"
    assert len(llm.requests) == 1
    metrics = gov.server.request("GET", "/metrics")[2]
    assert 'agentgate_idempotency_total{outcome="claimed"} 1' in metrics
    assert 'agentgate_idempotency_total{outcome="in_use"} 7' in metrics


def test_a_finished_call_is_replayed_and_a_different_request_is_422(gov, llm):
    gov.agent("bot")
    llm.push(openai_text("receipt 1"))
    status, headers, first = gov.invoke("bot", {"message": "pay"}, headers={"idempotency-key": "k-1"})
    assert status == 200 and "idempotent-replayed" not in headers
    status, headers, again = gov.invoke("bot", {"message": "pay"}, headers={"idempotency-key": "k-1"})
    assert status == 200 and headers["idempotent-replayed"] == "true" and again == first
    assert len(llm.requests) == 1  # no second turn, no second bill
    status, _, body = gov.invoke("bot", {"message": "pay twice"}, headers={"idempotency-key": "k-1"})
    assert status == 422 and error_of(body)["code"] == "idempotency_key_reused"
    metrics = gov.server.request("GET", "/metrics")[2]
    assert 'agentgate_idempotency_total{outcome="replayed"} 1' in metrics
    assert 'agentgate_idempotency_total{outcome="reused"} 1' in metrics
    status, _, body = gov.invoke("bot", {"message": "pay"}, headers={"idempotency-key": "bad key"})
    assert status == 400 and "Idempotency-Key" in error_of(body)["message"]


def test_a_replay_needs_the_rights_of_a_fresh_call(gov, llm):
    gov.agent("bot")
    llm.push(openai_text("the payroll figures"))
    assert gov.invoke("bot", {"message": "pay"}, headers={"idempotency-key": "k-2"})[0] == 200
    # Another token of the same org and env, with no chat grant on the agent: 403, never the answer.
    stranger = Tenant(gov.server, existing=True)
    status, headers, body = stranger.invoke("bot", {"message": "pay"}, headers={"idempotency-key": "k-2"})
    assert status == 403 and error_of(body)["code"] == "forbidden", body
    assert "idempotent-replayed" not in headers and "payroll" not in str(body)
    # The flow action's replay too.
    flow_call = {"agentExternalId": "bot", "message": "pay", "idempotencyKey": "k-3"}
    llm.push(openai_text("the payroll figures"))
    assert flow_as(gov, gov.token, flow_call)[0] == 200
    status, _, body = flow_as(gov, stranger.token, flow_call)
    assert status == 403 and body["message"].startswith("403: ") and "payroll" not in str(body), body
    # Once granted, the stranger is a caller like any other and gets the stored answer.
    gov.server.admin("PUT", "/orgs/acme/grants", {"token_id": stranger.token_id, "agent_id": "bot",
                                                  "permissions": ["chat"]})
    status, headers, body = stranger.invoke("bot", {"message": "pay"}, headers={"idempotency-key": "k-2"})
    assert status == 200 and headers["idempotent-replayed"] == "true" and "payroll" in body["response"]
    assert len(llm.requests) == 2


def flow_as(tenant, token, body):
    h = {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod", "fl-api-token": token}
    return tenant.server.request("POST", "/api/flow-actions/invoke-agent", body, h)


def test_keys_are_scoped_to_org_and_env_and_failures_release_them(gov, llm):
    gov.agent("bot")
    gov.server.admin("POST", "/orgs/acme/environments", {"name": "dev"})
    gov.server.admin("PUT", "/orgs/acme/agents/bot/deployments/dev", {"version": 1})
    assert gov.invoke("bot", {"message": "x"}, headers={"idempotency-key": "shared"})[0] == 200
    status, headers, _ = gov.invoke("bot", {"message": "x"}, headers={"idempotency-key": "shared", "fl-api-env": "dev"})
    assert status == 200 and "idempotent-replayed" not in headers
    # A call that fails (here: a bad instance) releases the key; the corrected call may use it.
    gov.agent("store", per_instance=True)
    assert gov.invoke("store", {"message": "x"}, headers={"idempotency-key": "retry-me"})[0] == 400
    gov.server.admin("POST", "/orgs/acme/agents/store/instances", {"instance_id": "s1"})
    assert gov.invoke("store", {"message": "x", "instance_id": "s1"}, headers={"idempotency-key": "retry-me"})[0] == 200


def test_the_conversation_window_allows_exactly_200_calls(gov, llm):
    gov.agent("chatty", model="offline-1", provider="offline")
    _, _, first = gov.invoke("chatty", {"message": "hi", "stateful": True})  # the creating call counts
    cid = first["conversation_id"]
    results = parallel(16, lambda i: [gov.invoke("chatty", {"message": f"m{i}-{j}", "stateful": True,
                                                            "conversation_id": cid}) for j in range(13)])
    flat = [r for batch in results for r in batch]
    ok = [r for r in flat if r[0] == 200]
    limited = [r for r in flat if r[0] == 429]
    assert len(ok) == 199 and len(limited) == len(flat) - 199
    assert error_of(limited[0][2])["code"] == "rate_limited"
    retry_after = int(limited[0][1]["retry-after"])
    assert 1 <= retry_after <= 120
    assert f"agentgate_rate_limited_total {len(limited)}" in gov.server.request("GET", "/metrics")[2]
    # Stateless calls and other conversations are never limited by it.
    assert gov.invoke("chatty", {"message": "stateless"})[0] == 200
    assert gov.invoke("chatty", {"message": "new", "stateful": True})[0] == 200


def test_spend_limits_402_with_the_contract_fields(gov, llm):
    gov.agent("pricey")  # gpt-test: $1000 / $2000 per million tokens
    gov.server.admin("PATCH", "/orgs/acme", {"monthly_spend_limit_usd": 0.5})
    llm.push(openai_text("expensive", input_tokens=200, output_tokens=200))  # $0.6 settled
    assert gov.invoke("pricey", {"message": "x"})[0] == 200
    status, _, body = gov.invoke("pricey", {"message": "x"})
    assert status == 402
    err = error_of(body)
    assert err["code"] == "spend_limit_reached" and err["scope"] == "organization"
    assert err["limit_usd"] == 0.5 and err["spent_usd"] == pytest.approx(0.6)
    assert err["resets_at"].endswith("-01T00:00:00Z")
    assert len(llm.requests) == 1
    _, _, usage = gov.server.admin("GET", "/orgs/acme/usage")
    assert usage["total_spent_usd"] == pytest.approx(0.6) and usage["agents"][0]["model_calls"] == 1


def test_the_agent_limit_applies_on_its_own(gov, llm):
    gov.agent("capped", monthly_spend_limit_usd=0.0)
    gov.agent("free")
    status, _, body = gov.invoke("capped", {"message": "x"})
    assert status == 402 and error_of(body)["scope"] == "agent"
    llm.push(openai_text("fine"))
    assert gov.invoke("free", {"message": "x"})[0] == 200


def test_a_refused_first_call_leaves_no_conversation(gov, llm):
    gov.agent("capped", monthly_spend_limit_usd=0.0)
    status, _, body = gov.invoke("capped", {"message": "x", "stateful": True})
    assert status == 402 and "conversation_id" not in body, body
    assert stores.count_rows(gov.server.store_url, "conversations") == 0


def test_concurrent_turns_never_overshoot_by_more_than_one_worst_case(gov, llm):
    gov.agent("bulk", model_settings={"max_output_tokens": 100})
    limit = 1.0
    gov.server.admin("PATCH", "/orgs/acme", {"monthly_spend_limit_usd": limit})
    for _ in range(40):
        llm.push(dict(openai_text("ok", input_tokens=20, output_tokens=100), delay=0.2))  # $0.22 each
    results = parallel(20, lambda i: gov.invoke("bulk", {"message": "go"}))
    ok = sum(1 for r in results if r[0] == 200)
    refused = sum(1 for r in results if r[0] == 402)
    assert ok + refused == 20 and refused > 0
    _, _, usage = gov.server.admin("GET", "/orgs/acme/usage")
    _, _, text = gov.server.request("GET", "/metrics")
    reserved = next(float(line.split()[1]) for line in text.splitlines()
                    if line.startswith("agentgate_spend_reserved_usd_total "))
    reservations = sum(1 for r in results if r[0] == 200)
    worst_case = reserved / reservations  # every call reserved the same worst case
    assert usage["total_spent_usd"] <= limit + worst_case
    assert gov.settled_usage()["total_reserved_usd"] == 0


def test_an_unpriced_model_is_a_configuration_error(gov, llm, start_server):
    status, _, body = gov.server.admin("POST", "/orgs/acme/agents", {"id": "nopay", "config": {
        "name": "n", "model": {"provider": "fake-openai", "name": "unpriced-model"}}})
    assert status == 400 and "'config.model.name'" in error_of(body)["message"]
    gov.agent("bot")
    store = gov.server.store_url
    gov.server.stop()
    import subprocess
    from conftest import BINARY, MASTER_KEY
    no_prices = gov.server.dir / "no-prices.toml"
    no_prices.write_text(config_for(llm).split("[prices.")[0])
    proc = subprocess.run([BINARY, "serve", "--config", str(no_prices)], capture_output=True, text=True, timeout=10,
                          env={"AGENTGATE_STORE_URL": store, "AGENTGATE_SERVER_LISTEN": "127.0.0.1:0",
                               "AGENTGATE_MASTER_KEY": MASTER_KEY})
    assert proc.returncode != 0 and "fake-openai/gpt-test" in proc.stderr and "no price" in proc.stderr


def test_two_servers_sharing_one_store_behave_as_one(llm, two_servers):
    tenant, other = two_servers
    tenant.agent("bot")
    llm.push(dict(openai_text("once across servers"), delay=1.0))
    barrier = threading.Barrier(6)

    def call(i):
        barrier.wait()
        target = tenant if i % 2 == 0 else other
        return target.invoke("bot", {"message": "pay"}, headers={"idempotency-key": "cross-server"})

    results = parallel(6, call)
    assert sorted(r[0] for r in results) == [200] + [409] * 5
    assert len(llm.requests) == 1
    status, headers, _ = other.invoke("bot", {"message": "pay"}, headers={"idempotency-key": "cross-server"})
    assert status == 200 and headers["idempotent-replayed"] == "true"


def test_two_servers_share_the_window_and_the_spend_limit(llm, two_servers):
    tenant, other = two_servers
    tenant.agent("chatty", model="offline-1", provider="offline")
    tenant.agent("bulk", model_settings={"max_output_tokens": 100})
    servers = [tenant, other]

    _, _, convo = tenant.invoke("chatty", {"message": "hi", "stateful": True})
    cid = convo["conversation_id"]
    results = parallel(8, lambda i: [servers[(i + j) % 2].invoke(
        "chatty", {"message": f"{i}-{j}", "stateful": True, "conversation_id": cid}) for j in range(27)])
    statuses = [r[0] for batch in results for r in batch]
    assert statuses.count(200) == 199 and statuses.count(429) == len(statuses) - 199

    tenant.server.admin("PATCH", "/orgs/acme", {"monthly_spend_limit_usd": 1.0})
    for _ in range(40):
        llm.push(dict(openai_text("ok", input_tokens=20, output_tokens=100), delay=0.2))
    results = parallel(20, lambda i: servers[i % 2].invoke("bulk", {"message": "go"}))
    ok = sum(1 for r in results if r[0] == 200)
    assert ok + sum(1 for r in results if r[0] == 402) == 20
    _, _, usage = tenant.server.admin("GET", "/orgs/acme/usage")
    assert usage["total_spent_usd"] <= 1.0 + 0.23  # one call's worst case: ~28 tokens in, 100 out


def test_a_lowered_limit_holds_at_once_here_and_within_a_second_on_every_other_server(llm, two_servers):
    tenant, other = two_servers
    tenant.agent("bot")
    for _ in range(4):
        llm.push(openai_text("paid"))
    # Both servers hold a spend lease for the agent: each served a turn.
    assert tenant.invoke("bot", {"message": "x"})[0] == 200
    assert other.invoke("bot", {"message": "x"})[0] == 200
    assert tenant.server.admin("PATCH", "/orgs/acme", {"monthly_spend_limit_usd": 0.001})[0] == 200
    status, _, body = tenant.invoke("bot", {"message": "x"})  # the server that changed it: at once
    assert status == 402 and error_of(body)["scope"] == "organization", body
    changed = time.monotonic()
    while other.invoke("bot", {"message": "x"})[0] == 200:  # the other: once its lease is retired
        assert time.monotonic() - changed < 1.2
    assert other.invoke("bot", {"message": "x"})[0] == 402
    usage = tenant.settled_usage(servers=(other.server,))
    assert usage["total_reserved_usd"] == 0 and usage["agents"][0]["model_calls"] == len(llm.requests)


def test_turns_on_one_conversation_never_interleave_across_servers(llm, two_servers):
    tenant, other = two_servers
    tenant.agent("chat")
    llm.push(openai_text("start reply"))
    _, _, convo = tenant.invoke("chat", {"message": "start", "stateful": True})
    cid = convo["conversation_id"]
    llm.reset()
    llm.push(dict(openai_text("slow reply on A"), delay=1.0), openai_text("reply on B"))
    results = {}

    def call(name, target, delay):
        time.sleep(delay)
        results[name] = target.invoke("chat", {"message": name, "stateful": True, "conversation_id": cid})

    threads = [threading.Thread(target=call, args=("one", tenant, 0)),
               threading.Thread(target=call, args=("two", other, 0.3))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["one"][2]["response"] == "slow reply on A" and results["two"][2]["response"] == "reply on B"
    seen_by_b = [m["content"] for m in llm.requests[1]["body"]["messages"][1:]]
    assert seen_by_b[-3:] == ["one", "slow reply on A", "two"]  # B waited for A's turn and saw its reply
