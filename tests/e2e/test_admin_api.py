"""The operator admin API (SPEC §4) through the binary, including bad input on every route."""
import pytest

from conftest import error_of
from stores import stored_bytes

AGENT_CONFIG = {"name": "Support bot", "instructions": "Be kind.",
                "model": {"provider": "offline", "name": "offline-1"}}


def setup_org(server, org="acme"):
    assert server.admin("POST", "/orgs", {"id": org, "name": "Acme"})[0] == 201
    assert server.admin("POST", f"/orgs/{org}/environments", {"name": "prod"})[0] == 201
    return org


def test_admin_calls_need_the_bearer_token(server):
    for token in (None, "wrong-token-wrong-token"):
        status, _, body = server.admin("POST", "/orgs", {"name": "X"}, token=token)
        assert status == 401
        assert error_of(body)["code"] == "unauthenticated"
        assert "wrong-token" not in body["error"]["message"]


def test_org_lifecycle(server):
    status, _, org = server.admin("POST", "/orgs", {"name": "Generated"})
    assert status == 201 and org["id"].startswith("org_") and org["monthly_spend_limit_usd"] is None
    status, _, org = server.admin("POST", "/orgs", {"id": "acme", "name": "Acme", "monthly_spend_limit_usd": 25})
    assert status == 201 and org["monthly_spend_limit_usd"] == 25
    status, _, body = server.admin("POST", "/orgs", {"id": "acme", "name": "Again"})
    assert status == 409 and error_of(body)["code"] == "conflict"
    status, _, org = server.admin("PATCH", "/orgs/acme", {"monthly_spend_limit_usd": None})
    assert status == 200 and org["monthly_spend_limit_usd"] is None
    status, _, org = server.admin("PATCH", "/orgs/acme", {"monthly_spend_limit_usd": 10.5})
    assert status == 200 and org["monthly_spend_limit_usd"] == 10.5
    assert server.admin("PATCH", "/orgs/nope", {"monthly_spend_limit_usd": 1})[0] == 404


@pytest.mark.parametrize("path,method,body,field", [
    ("/orgs", "POST", {"name": ""}, "name"),
    ("/orgs", "POST", {"id": "bad id", "name": "A"}, "id"),
    ("/orgs", "POST", {"name": "A", "monthly_spend_limit_usd": "ten"}, "monthly_spend_limit_usd"),
    ("/orgs", "POST", {"name": "A", "surprise": True}, "surprise"),
    ("/orgs", "POST", [], "body"),
    ("/orgs/acme", "PATCH", {}, "monthly_spend_limit_usd"),
    ("/orgs/acme/environments", "POST", {"name": "Prod!"}, "name"),
    ("/orgs/acme/tokens", "POST", {"name": "t", "environments": ["nope"]}, "environments[0]"),
    ("/orgs/acme/tokens", "POST", {"environments": ["prod"]}, "name"),
    ("/orgs/acme/agents", "POST", {"config": {"name": "x"}}, "config.model"),
    ("/orgs/acme/agents", "POST", {"config": dict(AGENT_CONFIG, model={"provider": "nope", "name": "m"})},
     "config.model.provider"),
    ("/orgs/acme/agents", "POST", {"id": "a"}, "config"),
    ("/orgs/acme/agents", "POST", {"config": dict(AGENT_CONFIG, tools=[{"type": "http", "name": "t",
                                   "description": "d", "url": "gopher://x"}])}, "config.tools[0].url"),
    ("/orgs/acme/agents", "POST", {"config": dict(AGENT_CONFIG, tools=[{"type": "mcp", "name": "d",
                                   "url": "file:///etc/passwd"}])}, "config.tools[0].url"),
    ("/orgs/acme/agents", "POST", {"config": dict(AGENT_CONFIG, tools=[{"type": "mcp", "name": "d", "url": "http://x",
                                   "allowed_tool": ["s"]}])}, "config.tools[0].allowed_tool"),
    ("/orgs/acme/agents", "POST", {"config": dict(AGENT_CONFIG, tools=[
        {"type": "mcp", "name": "d", "url": "http://x"}, {"type": "mcp", "name": "d", "url": "http://y"}])},
     "config.tools[1].name"),
    ("/orgs/acme/grants", "PUT", {"token_id": "x", "agent_id": "a", "permissions": ["chat"]}, "token_id"),
    ("/orgs/acme/grants", "PUT", {"token_id": "x", "agent_id": "a", "permissions": ["write"]}, "permissions[0]"),
    ("/orgs/acme/environments/prod/crm", "PUT", {"login_url": "https://l", "client_id": "c"}, "refresh_token"),
    ("/orgs/acme/environments/prod/crm", "PUT", {"instance_url": "not a url", "access_token": "t"}, "instance_url"),
])
def test_bad_input_is_a_400_naming_the_field(server, path, method, body, field):
    setup_org(server)
    status, _, resp = server.admin(method, path, body)
    assert status == 400, resp
    err = error_of(resp)
    assert err["code"] == "invalid_request" and err["status"] == 400
    assert f"'{field}'" in err["message"], err["message"]


def test_malformed_json_is_a_400(server):
    status, _, body = server.admin("POST", "/orgs", raw="{not json")
    assert status == 400 and "not valid JSON" in error_of(body)["message"]
    status, _, body = server.admin("POST", "/orgs", raw="")
    assert status == 400 and "'body'" in error_of(body)["message"]


def test_tokens_environments_and_revocation(server):
    org = setup_org(server)
    assert server.admin("POST", f"/orgs/{org}/environments", {"name": "prod"})[0] == 409
    assert server.admin("POST", "/orgs/ghost/environments", {"name": "prod"})[0] == 404
    status, _, tok = server.admin("POST", f"/orgs/{org}/tokens", {"name": "backend", "environments": ["prod"]})
    assert status == 201
    assert tok["token"].startswith("agt_" + tok["id"] + ".") and tok["environments"] == ["prod"]
    status, _, all_envs = server.admin("POST", f"/orgs/{org}/tokens", {"name": "everything"})
    assert status == 201 and all_envs["environments"] is None
    assert server.admin("DELETE", f"/orgs/{org}/tokens/{tok['id']}")[0] == 200
    assert server.admin("DELETE", f"/orgs/{org}/tokens/unknown")[0] == 404
    assert server.admin("DELETE", f"/orgs/other/tokens/{all_envs['id']}")[0] == 404


def test_oauth_clients_are_bound_to_a_token_shown_once_listed_without_secrets_and_revoked(server):
    """The built-in authorization server's clients (docs/mcp.md, OAuth; issue 59's first part)."""
    org = setup_org(server)
    assert server.admin("POST", f"/orgs/{org}/environments", {"name": "dev"})[0] == 201
    _, _, tok = server.admin("POST", f"/orgs/{org}/tokens", {"name": "agentforce", "environments": ["prod"]})
    base = f"/orgs/{org}/environments/prod/oauth-clients"
    status, _, client = server.admin("POST", base, {"token_id": tok["id"], "name": "Agentforce"})
    assert status == 201, client
    assert client["client_id"].startswith("agc_") and client["client_secret"].startswith("agcs_")
    assert client["token_id"] == tok["id"] and client["env"] == "prod" and client["name"] == "Agentforce"
    status, _, listed = server.admin("GET", base)
    assert status == 200 and [c["client_id"] for c in listed["oauth_clients"]] == [client["client_id"]]
    assert "client_secret" not in listed["oauth_clients"][0]
    # The secret is kept only as its hash.
    assert client["client_secret"].encode() not in stored_bytes(server.store_url)
    # Bound to a token of the organization that may use the environment, or refused naming it.
    for body, field in [({"token_id": "nope", "name": "x"}, "token_id"),
                        ({"token_id": tok["id"]}, "name"),
                        ({"token_id": tok["id"], "name": "x", "scope": "all"}, "scope")]:
        status, _, refused = server.admin("POST", base, body)
        assert status == 400 and f"'{field}'" in error_of(refused)["message"], (body, refused)
    status, _, refused = server.admin("POST", f"/orgs/{org}/environments/dev/oauth-clients",
                                      {"token_id": tok["id"], "name": "x"})
    assert status == 400 and "dev" in refused["error"]["message"], refused
    assert server.admin("GET", f"/orgs/{org}/environments/ghost/oauth-clients")[0] == 404
    # Revoked: gone from its environment only.
    assert server.admin("DELETE", f"/orgs/{org}/environments/dev/oauth-clients/{client['client_id']}")[0] == 404
    assert server.admin("DELETE", f"{base}/{client['client_id']}")[0] == 200
    assert server.admin("GET", base)[2]["oauth_clients"] == []
    assert server.admin("DELETE", f"{base}/{client['client_id']}")[0] == 404
    server.admin("DELETE", f"/orgs/{org}/tokens/{tok['id']}")
    status, _, refused = server.admin("POST", base, {"token_id": tok["id"], "name": "x"})
    assert status == 400 and "revoked" in refused["error"]["message"], refused


def test_agents_versions_deployments_instances_and_grants(server):
    org = setup_org(server)
    status, _, agent = server.admin("POST", f"/orgs/{org}/agents", {"id": "bot", "config": AGENT_CONFIG})
    assert (status, agent) == (201, {"id": "bot", "version": 1})
    assert server.admin("POST", f"/orgs/{org}/agents", {"id": "bot", "config": AGENT_CONFIG})[0] == 409
    status, _, v2 = server.admin("POST", f"/orgs/{org}/agents/bot/versions", {"config": AGENT_CONFIG})
    assert (status, v2["version"]) == (201, 2)
    assert server.admin("POST", f"/orgs/{org}/agents/ghost/versions", {"config": AGENT_CONFIG})[0] == 404
    status, _, dep = server.admin("PUT", f"/orgs/{org}/agents/bot/deployments/prod", {"version": 2})
    assert status == 200 and dep == {"agent_id": "bot", "env": "prod", "version": 2}
    status, _, body = server.admin("PUT", f"/orgs/{org}/agents/bot/deployments/prod", {"version": 7})
    assert status == 400 and "'version'" in error_of(body)["message"]
    assert server.admin("PUT", f"/orgs/{org}/agents/bot/deployments/staging", {"version": 1})[0] == 404
    assert server.admin("PUT", f"/orgs/{org}/agents/ghost/deployments/prod", {"version": 1})[0] == 404
    status, _, inst = server.admin("POST", f"/orgs/{org}/agents/bot/instances",
                                   {"instance_id": "store-7", "instructions": "Store 7 closes at 6."})
    assert status == 201 and inst["instance_id"] == "store-7"
    assert server.admin("POST", f"/orgs/{org}/agents/bot/instances", {"instance_id": "store-7"})[0] == 409
    assert server.admin("POST", f"/orgs/{org}/agents/ghost/instances", {"instance_id": "x"})[0] == 404
    _, _, tok = server.admin("POST", f"/orgs/{org}/tokens", {"name": "t"})
    status, _, grant = server.admin("PUT", f"/orgs/{org}/grants",
                                    {"token_id": tok["id"], "agent_id": "bot", "permissions": ["chat"]})
    assert status == 200 and grant["permissions"] == ["chat"]
    status, _, body = server.admin("PUT", f"/orgs/{org}/grants",
                                   {"token_id": tok["id"], "agent_id": "ghost", "permissions": ["chat"]})
    assert status == 400 and "'agent_id'" in error_of(body)["message"]


def test_crm_credentials_are_accepted_but_never_echoed_or_stored_in_clear(server):
    org = setup_org(server)
    secret = "super-secret-refresh-token-value"
    status, _, body = server.admin("PUT", f"/orgs/{org}/environments/prod/crm", {
        "login_url": "https://login.salesforce.com", "client_id": "3MVG9", "client_secret": "client-secret-value",
        "refresh_token": secret})
    assert status == 200 and body["kind"] == "refresh_token"
    assert secret not in str(body) and "client-secret-value" not in str(body)
    status, _, body = server.admin("PUT", f"/orgs/{org}/environments/prod/crm",
                                   {"instance_url": "https://acme.my.salesforce.com", "access_token": "00D!tok"})
    assert status == 200 and body == {"org_id": org, "env": "prod", "kind": "static_session",
                                      "instance_url": "https://acme.my.salesforce.com"}
    assert server.admin("PUT", f"/orgs/{org}/environments/dev/crm",
                        {"instance_url": "https://x.example", "access_token": "t"})[0] == 404
    db = stored_bytes(server.store_url)
    assert secret.encode() not in db and b"00D!tok" not in db and b"client-secret-value" not in db
    assert secret not in "".join(server.lines)


def test_usage_and_conversations(server):
    org = setup_org(server)
    status, _, usage = server.admin("GET", f"/orgs/{org}/usage?month=2026-11")
    assert status == 200
    assert usage == {"org_id": org, "month": "2026-11", "total_spent_usd": 0, "total_reserved_usd": 0,
                     "agents": [], "monthly_spend_limit_usd": None}
    status, _, body = server.admin("GET", f"/orgs/{org}/usage?month=2026-13")
    assert status == 400 and "'month'" in error_of(body)["message"]
    status, _, usage = server.admin("GET", f"/orgs/{org}/usage")
    assert status == 200 and len(usage["month"]) == 7
    assert server.admin("GET", "/orgs/ghost/usage")[0] == 404
    status, _, body = server.admin("GET", f"/orgs/{org}/conversations/nope")
    assert status == 404 and error_of(body)["code"] == "conversation_not_found"


def test_the_admin_api_is_off_without_a_token(start_server):
    s = start_server(env={"AGENTGATE_ADMIN_TOKEN": ""})
    status, _, body = s.admin("POST", "/orgs", {"name": "X"})
    assert status == 401 and "disabled" in error_of(body)["message"]


def test_a_store_with_sealed_secrets_needs_its_master_key(start_server):
    import subprocess
    from conftest import BINARY
    s = start_server()
    s.admin("POST", "/orgs", {"id": "acme", "name": "Acme"})
    s.admin("POST", "/orgs/acme/environments", {"name": "prod"})
    assert s.admin("PUT", "/orgs/acme/environments/prod/crm",
                   {"instance_url": "https://acme.my.salesforce.com", "access_token": "00D!x"})[0] == 200
    s.stop()
    db = s.store_url
    env = {"AGENTGATE_STORE_URL": db, "AGENTGATE_SERVER_LISTEN": "127.0.0.1:0", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([BINARY, "serve"], capture_output=True, text=True, timeout=10, env=env)
    assert proc.returncode != 0 and "master key" in proc.stderr
    # The right key opens it again.
    again = start_server(env={"AGENTGATE_STORE_URL": db})
    assert again.request("GET", "/readyz")[0] == 200


def test_storing_crm_secrets_without_a_master_key_is_refused(start_server):
    s = start_server(env={"AGENTGATE_MASTER_KEY": ""})
    s.admin("POST", "/orgs", {"id": "acme", "name": "Acme"})
    s.admin("POST", "/orgs/acme/environments", {"name": "prod"})
    status, _, body = s.admin("PUT", "/orgs/acme/environments/prod/crm",
                              {"instance_url": "https://acme.my.salesforce.com", "access_token": "00D!x"})
    assert status == 503 and "master key" in body["error"]["message"]
