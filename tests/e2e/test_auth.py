"""Header authentication of product endpoints (SPEC §3) through the binary."""
import time

import pytest

from conftest import error_of

CONFIG = {"name": "Bot", "model": {"provider": "offline", "name": "offline-1"}}


@pytest.fixture
def tenant(server):
    server.admin("POST", "/orgs", {"id": "acme", "name": "Acme"})
    server.admin("POST", "/orgs", {"id": "other", "name": "Other"})
    for env in ("prod", "dev"):
        server.admin("POST", "/orgs/acme/environments", {"name": env})
    server.admin("POST", "/orgs/other/environments", {"name": "prod"})
    server.admin("POST", "/orgs/acme/agents", {"id": "bot", "config": CONFIG})
    server.admin("POST", "/orgs/acme/agents", {"id": "hidden", "config": CONFIG})
    server.admin("PUT", "/orgs/acme/agents/bot/deployments/prod", {"version": 1})
    server.admin("PUT", "/orgs/acme/agents/bot/deployments/dev", {"version": 1})
    _, _, tok = server.admin("POST", "/orgs/acme/tokens", {"name": "all"})
    _, _, prod_only = server.admin("POST", "/orgs/acme/tokens", {"name": "prod", "environments": ["prod"]})
    _, _, no_grant = server.admin("POST", "/orgs/acme/tokens", {"name": "nogrant"})
    for t in (tok, prod_only):
        server.admin("PUT", "/orgs/acme/grants", {"token_id": t["id"], "agent_id": "bot", "permissions": ["chat"]})
    return {"token": tok, "prod_only": prod_only, "no_grant": no_grant}


def invoke(server, headers, agent="bot", body=None):
    h = {"content-type": "application/json"}
    h.update({k: v for k, v in headers.items() if v is not None})
    return server.request("POST", f"/api/agents/{agent}/invoke", body or {"message": "hi"}, h)


def test_missing_org_or_token_is_401_and_missing_env_is_400(server, tenant):
    tok = tenant["token"]["token"]
    status, _, body = invoke(server, {"fl-api-token": tok, "fl-api-env": "prod"})
    assert status == 401 and error_of(body)["code"] == "unauthenticated"
    status, _, body = invoke(server, {"fl-api-org": "acme", "fl-api-env": "prod"})
    assert status == 401 and error_of(body)["code"] == "unauthenticated"
    status, _, body = invoke(server, {"fl-api-org": "acme", "fl-api-token": tok})
    assert status == 400 and error_of(body)["code"] == "missing_header" and "fl-api-env" in body["error"]["message"]


@pytest.mark.parametrize("mutate", [
    lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),  # wrong secret
    lambda t: "agt_ffffffffffffffff." + t.split(".")[1],  # unknown id
    lambda t: "garbage",
    lambda t: t + "x",
])
def test_wrong_tokens_are_401_and_never_echoed(server, tenant, mutate):
    bad = mutate(tenant["token"]["token"])
    status, _, body = invoke(server, {"fl-api-org": "acme", "fl-api-token": bad, "fl-api-env": "prod"})
    assert status == 401 and error_of(body)["code"] == "unauthenticated"
    assert bad not in str(body)


def test_a_token_of_another_org_or_an_unknown_org_is_401(server, tenant):
    tok = tenant["token"]["token"]
    for org in ("other", "ghost"):
        status, _, body = invoke(server, {"fl-api-org": org, "fl-api-token": tok, "fl-api-env": "prod"})
        assert status == 401


def test_revoked_tokens_are_refused(server, tenant):
    tok = tenant["token"]
    headers = {"fl-api-org": "acme", "fl-api-token": tok["token"], "fl-api-env": "prod"}
    assert invoke(server, headers)[0] == 200
    server.admin("DELETE", f"/orgs/acme/tokens/{tok['id']}")
    status, _, body = invoke(server, headers)
    assert status == 401 and error_of(body)["code"] == "unauthenticated"


def test_a_revoked_token_or_grant_stops_at_once_here_and_within_a_second_on_another_server(
        server, tenant, start_server):
    # Both servers have the token, the environment, the grant and the deployment in memory.
    other = start_server(args=(), env={"AGENTGATE_STORE_URL": server.store_url})
    tok = tenant["token"]
    headers = {"fl-api-org": "acme", "fl-api-token": tok["token"], "fl-api-env": "prod"}
    for s in (server, other):
        assert invoke(s, headers)[0] == 200

    def refused_within(s, status):
        """Calls until `status` comes back: how long after `since` it came, or None."""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if invoke(s, headers)[0] == status:
                return time.monotonic() - since
        return None

    assert server.admin("PUT", "/orgs/acme/grants", {"token_id": tok["id"], "agent_id": "bot",
                                                      "permissions": []})[0] == 200
    since = time.monotonic()
    assert invoke(server, headers)[0] == 403  # the revoking server: at once
    took = refused_within(other, 403)
    assert took is not None and took <= 1.2, took

    server.admin("PUT", "/orgs/acme/grants", {"token_id": tok["id"], "agent_id": "bot", "permissions": ["chat"]})
    assert refused_within(other, 200) is not None
    assert server.admin("DELETE", f"/orgs/acme/tokens/{tok['id']}")[0] == 200
    since = time.monotonic()
    assert invoke(server, headers)[0] == 401
    took = refused_within(other, 401)
    assert took is not None and took <= 1.2, took


def test_env_limited_tokens_are_403_elsewhere(server, tenant):
    tok = tenant["prod_only"]["token"]
    assert invoke(server, {"fl-api-org": "acme", "fl-api-token": tok, "fl-api-env": "prod"})[0] == 200
    status, _, body = invoke(server, {"fl-api-org": "acme", "fl-api-token": tok, "fl-api-env": "dev"})
    assert status == 403 and error_of(body)["code"] == "forbidden"
    status, _, body = invoke(server, {"fl-api-org": "acme", "fl-api-token": tok, "fl-api-env": "nowhere"})
    assert status == 403


def test_grants_and_visibility(server, tenant):
    no_grant = tenant["no_grant"]["token"]
    status, _, body = invoke(server, {"fl-api-org": "acme", "fl-api-token": no_grant, "fl-api-env": "prod"})
    assert status == 403 and "chat" in error_of(body)["message"]
    tok = tenant["token"]["token"]
    status, _, body = invoke(server, {"fl-api-org": "acme", "fl-api-token": tok, "fl-api-env": "prod"}, agent="hidden")
    assert status == 404 and error_of(body)["code"] == "agent_not_found"
    status, _, body = invoke(server, {"fl-api-org": "acme", "fl-api-token": tok, "fl-api-env": "prod"}, agent="ghost")
    assert status == 404 and error_of(body)["code"] == "agent_not_found"


def test_tokens_never_reach_the_log(server, tenant):
    tok = tenant["token"]["token"]
    invoke(server, {"fl-api-org": "acme", "fl-api-token": tok, "fl-api-env": "prod"})
    invoke(server, {"fl-api-org": "acme", "fl-api-token": tok + "x", "fl-api-env": "prod"})
    log = "".join(server.lines)
    assert tok.split(".")[1] not in log
