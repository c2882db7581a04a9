"""The operator console over HTTP: its page and files, sign-in, the session cookie, CSRF, sign-out,
and that the admin token never leaves the server after sign-in (docs/console.md)."""
import json
import os
import re

import stores
from conftest import ADMIN_TOKEN, error_of


def sign_in(s, headers=None):
    status, h, body = s.request("POST", "/console/session", {"admin_token": ADMIN_TOKEN},
                                {"content-type": "application/json", **(headers or {})})
    assert status == 200, body
    cookie = h["set-cookie"].split(";", 1)[0]
    return cookie, body["csrf_token"], h["set-cookie"]


def console(s, method, path, body=None, cookie=None, csrf=None, extra=None):
    headers = {"content-type": "application/json", **(extra or {})}
    if cookie:
        headers["cookie"] = cookie
    if csrf:
        headers["x-csrf-token"] = csrf
    return s.request(method, path, body, headers)


def test_the_console_page_and_its_files_are_served_with_their_guards(server):
    status, h, _ = server.request("GET", "/console")
    assert status == 308 and h["location"] == "/console/"
    status, h, page = server.request("GET", "/console/")
    assert status == 200 and h["content-type"].startswith("text/html")
    assert "frame-ancestors 'none'" in h["content-security-policy"] and "script-src 'self'" in h["content-security-policy"]
    assert h["x-content-type-options"] == "nosniff"
    assets = re.findall(r'(?:src|href)="(/console/assets/[^"]+)"', page)
    assert '<script type="module" src="/console/assets/console.js">' in page  # the one entry
    seen = set()
    while assets:  # the page's files, and every module they import
        asset = assets.pop()
        if asset in seen:
            continue
        seen.add(asset)
        status, h, text = server.request("GET", asset)
        assert status == 200 and len(text) > 100, asset
        assert h["content-type"].split(";")[0] in ("text/javascript", "text/css", "image/svg+xml"), h
        assets += ["/console/assets/" + m for m in re.findall(r'from "\./([^"]+)"', text)]
    assert {"/console/assets/ui.js", "/console/assets/uPlot.esm.js"} <= seen
    # The page names its icon, so no browser asks for a /favicon.ico that is not there.
    assert '<link rel="icon" type="image/svg+xml" href="/console/assets/favicon.svg">' in page
    assert "/console/assets/favicon.svg" in seen
    status, _, body = server.request("GET", "/console/assets/nope.js")
    assert status == 404 and error_of(body)["code"] == "not_found"


def test_sign_in_sets_a_strict_http_only_cookie_and_never_echoes_the_token(server):
    status, _, body = server.request("GET", "/console/session")
    assert status == 200 and body == {"admin_api_enabled": True, "signed_in": False}
    status, _, body = console(server, "POST", "/console/session", {"admin_token": "wrong-token-0123456789"})
    assert status == 401 and "set-cookie" not in _
    status, _, body = console(server, "POST", "/console/session", {})
    assert status == 400 and "'admin_token'" in error_of(body)["message"]
    status, _, body = console(server, "POST", "/console/session", {"admin_token": ADMIN_TOKEN, "x": 1})
    assert status == 400 and "'x'" in error_of(body)["message"]

    cookie, csrf, set_cookie = sign_in(server)
    attributes = [a.strip() for a in set_cookie.split(";")]
    assert attributes[0].startswith("agentgate_console=") and len(attributes[0]) > 40
    assert "HttpOnly" in attributes and "SameSite=Strict" in attributes and "Path=/" in attributes
    assert any(re.fullmatch(r"Max-Age=\d+", a) for a in attributes)
    assert "Secure" not in attributes  # plain http: a Secure cookie would never be sent back
    assert ADMIN_TOKEN not in set_cookie and ADMIN_TOKEN not in csrf

    # Behind a TLS-terminating proxy the cookie is Secure.
    _, _, tls_cookie = sign_in(server, {"x-forwarded-proto": "https"})
    assert "Secure" in [a.strip() for a in tls_cookie.split(";")]

    status, h, body = console(server, "GET", "/console/session", cookie=cookie)
    assert status == 200 and body["signed_in"] is True and body["csrf_token"] == csrf
    assert h["cache-control"] == "no-store"


def admin_calls():
    """Every admin API call of the OpenAPI document, with sample path values."""
    status_doc = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "openapi.json")))
    for path, item in status_doc["paths"].items():
        if not path.startswith("/admin/v1"):
            continue
        for method in item:
            if method in ("get", "post", "put", "patch", "delete"):
                yield method.upper(), re.sub(r"\{[^}]+\}", "x1", path)


def test_every_admin_call_without_a_session_or_token_is_401(server):
    calls = list(admin_calls())
    assert len(calls) >= 20
    for method, path in calls:
        for cookie in (None, "agentgate_console=forged-session-id", "agentgate_console="):
            status, _, body = console(server, method, path, {}, cookie=cookie, csrf="anything")
            assert status == 401, (method, path, cookie, body)
            assert error_of(body)["code"] == "unauthenticated"


def test_a_state_changing_call_needs_the_sessions_csrf_token(server):
    cookie, csrf, _ = sign_in(server)
    status, _, body = console(server, "GET", "/admin/v1/orgs", cookie=cookie)
    assert status == 200 and any(o["id"] == "demo" for o in body["orgs"])
    # A cross-site form post carries the cookie (were SameSite ignored) but cannot know the token.
    for token in (None, "", "wrong", csrf[:-1]):
        status, _, body = console(server, "POST", "/admin/v1/orgs", {"id": "evil", "name": "Evil"}, cookie=cookie,
                                  csrf=token, extra={"origin": "https://evil.example"})
        assert status == 403 and "X-CSRF-Token" in error_of(body)["message"], (token, body)
    status, _, _ = server.admin("GET", "/orgs/evil")
    assert status == 404  # nothing was created
    status, _, body = console(server, "POST", "/admin/v1/orgs", {"id": "acme", "name": "Acme"}, cookie=cookie, csrf=csrf)
    assert status == 201 and body["id"] == "acme"
    # The CSRF token alone is no credential.
    status, _, _ = console(server, "POST", "/admin/v1/orgs", {"name": "X"}, csrf=csrf)
    assert status == 401


def test_sign_out_ends_the_session_on_the_server(server):
    cookie, csrf, _ = sign_in(server)
    status, _, _ = console(server, "DELETE", "/console/session", cookie=cookie)
    assert status == 403  # signing out is a state change too
    status, h, body = console(server, "DELETE", "/console/session", cookie=cookie, csrf=csrf)
    assert status == 200 and body == {"signed_in": False}
    assert "Max-Age=0" in h["set-cookie"] and h["set-cookie"].startswith("agentgate_console=;")
    status, _, _ = console(server, "GET", "/admin/v1/orgs", cookie=cookie)
    assert status == 401  # the old cookie, replayed, opens nothing
    status, _, body = console(server, "GET", "/console/session", cookie=cookie)
    assert body["signed_in"] is False
    status, _, _ = console(server, "DELETE", "/console/session", cookie=cookie, csrf=csrf)
    assert status == 401


def test_the_admin_token_appears_in_no_response_log_line_or_stored_row(server):
    cookie, csrf, _ = sign_in(server)
    seen = []
    for method, path, body in [("GET", "/console/session", None), ("GET", "/admin/v1/orgs", None),
                               ("POST", "/admin/v1/orgs", {"id": "acme", "name": "Acme"}),
                               ("GET", "/admin/v1/orgs/acme", None),
                               ("POST", "/admin/v1/orgs/acme/environments", {"name": "prod"}),
                               ("POST", "/admin/v1/orgs/acme/tokens", {"name": "b"}),
                               ("GET", "/admin/v1/orgs/acme/tokens", None), ("GET", "/console/", None)]:
        status, headers, answer = console(server, method, path, body, cookie=cookie, csrf=csrf)
        assert status < 300, (path, answer)
        seen.append(json.dumps(headers) + json.dumps(answer))
    assert not [s for s in seen if ADMIN_TOKEN in s]
    assert ADMIN_TOKEN not in "".join(server.lines)
    assert ADMIN_TOKEN.encode() not in stores.stored_bytes(server.store_url)


def test_with_the_admin_api_disabled_the_console_says_so(start_server):
    s = start_server(env={"AGENTGATE_ADMIN_TOKEN": ""})
    status, _, body = s.request("GET", "/console/session")
    assert status == 200 and body == {"admin_api_enabled": False, "signed_in": False}
    status, _, body = console(s, "POST", "/console/session", {"admin_token": ADMIN_TOKEN})
    assert status == 401 and "disabled" in error_of(body)["message"]
    status, _, _ = s.request("GET", "/console/")
    assert status == 200


def test_the_operator_lists_page_and_name_bad_parameters(server):
    for i in range(3):
        assert server.admin("POST", "/orgs", {"id": f"org{i}", "name": f"Org {i}"})[0] == 201
    status, _, body = server.admin("GET", "/orgs?limit=2")
    assert status == 200 and [o["id"] for o in body["orgs"]] == ["demo", "org0"]
    status, _, body = server.admin("GET", "/orgs?limit=2&after=" + body["next_after"])
    assert [o["id"] for o in body["orgs"]] == ["org1", "org2"]
    status, _, body = server.admin("GET", "/orgs?limit=2&after=org2")
    assert body == {"orgs": [], "next_after": None}
    status, _, body = server.admin("GET", "/orgs?limit=0")
    assert status == 400 and "'limit'" in error_of(body)["message"]
    status, _, body = server.admin("GET", "/orgs/demo")
    assert status == 200 and body["environments"] == ["dev"] and body["id"] == "demo"
    assert server.admin("GET", "/orgs/nope")[0] == 404
    assert server.admin("GET", "/orgs/nope/tokens")[0] == 404
    status, _, body = server.admin("GET", "/orgs/demo/tokens")
    assert status == 200 and len(body["tokens"]) == 1
    token = body["tokens"][0]
    assert set(token) == {"id", "name", "environments", "created_at", "revoked"} and token["revoked"] is False
    status, _, body = server.admin("GET", "/orgs/demo/tokens?limit=x")
    assert status == 400 and "'limit'" in error_of(body)["message"]


def test_an_orgs_agents_are_listed_with_versions_deployments_grants_and_instances(server):
    config = {"name": "Stores", "description": "Per store", "instructions": "Help.", "per_instance": True,
              "model": {"provider": "offline", "name": "offline-1"}}
    assert server.admin("POST", "/orgs/demo/agents", {"id": "stores", "config": config})[0] == 201
    config["name"] = "Stores 2"
    assert server.admin("POST", "/orgs/demo/agents/stores/versions", {"config": config})[2]["version"] == 2
    assert server.admin("PUT", "/orgs/demo/agents/stores/deployments/dev", {"version": 1})[0] == 200
    assert server.admin("POST", "/orgs/demo/agents/stores/instances", {"instance_id": "berlin"})[0] == 201
    token_id = server.admin("GET", "/orgs/demo/tokens")[2]["tokens"][0]["id"]
    assert server.admin("PUT", "/orgs/demo/grants",
                        {"token_id": token_id, "agent_id": "stores", "permissions": ["chat"]})[0] == 200

    status, _, body = server.admin("GET", "/orgs/demo/agents")
    assert status == 200 and [a["id"] for a in body["agents"]] == ["demo-agent", "stores"]
    stores_agent = body["agents"][1]
    assert stores_agent["name"] == "Stores 2" and stores_agent["latest_version"] == 2
    assert stores_agent["deployments"] == [{"env": "dev", "version": 1, "a2a_discoverable": False}]
    assert server.admin("GET", "/orgs/demo/agents?limit=1")[2]["agents"][0]["id"] == "demo-agent"

    status, _, body = server.admin("GET", "/orgs/demo/agents/stores")
    assert status == 200 and [v["version"] for v in body["versions"]] == [2, 1]
    assert body["versions"][1]["config"]["name"] == "Stores"
    assert body["deployments"] == [{"env": "dev", "version": 1, "a2a_discoverable": False}]
    assert body["grants"] == [{"token_id": token_id, "permissions": ["chat"]}]
    assert body["instances"] == [{"instance_id": "berlin", "instructions": ""}]
    status, _, body = server.admin("GET", "/orgs/demo/agents/ghost")
    assert status == 404 and error_of(body)["code"] == "agent_not_found"
    assert server.admin("GET", "/orgs/nope/agents")[0] == 404


def test_conversations_are_listed_newest_first_and_searchable(server):
    creds = server.demo_credentials()
    headers = {"fl-api-org": "demo", "fl-api-env": "dev", "fl-api-token": creds["token"]}
    ids = []
    for i in range(3):
        status, _, body = server.request("POST", "/api/agents/demo-agent/invoke",
                                         {"message": f"What is agentgate? {i}", "stateful": True}, headers)
        assert status == 200, body
        ids.append(body["conversation_id"])
    status, _, body = server.request("POST", "/api/agents/demo-agent/invoke",
                                     {"message": "again", "stateful": True, "conversation_id": ids[0]}, headers)
    assert status == 200
    status, _, body = server.admin("GET", "/orgs/demo/conversations")
    assert status == 200 and sorted(c["id"] for c in body["conversations"]) == sorted(ids)
    first = next(c for c in body["conversations"] if c["id"] == ids[0])
    assert first["turns"] == 2 and first["agent_id"] == "demo-agent" and first["env"] == "dev"
    assert first["last_turn_at"] and first["cost_usd"] == 0 and body["next_before"] is None

    status, _, page = server.admin("GET", "/orgs/demo/conversations?limit=2")
    assert len(page["conversations"]) == 2 and page["next_before"]
    status, _, rest = server.admin("GET", "/orgs/demo/conversations?limit=2&before=" + page["next_before"])
    assert len(rest["conversations"]) == 1
    assert {c["id"] for c in page["conversations"] + rest["conversations"]} == set(ids)

    assert len(server.admin("GET", "/orgs/demo/conversations?agent=demo-agent&env=dev&since=2000-01-01")[2]
               ["conversations"]) == 3
    assert server.admin("GET", "/orgs/demo/conversations?env=prod")[2]["conversations"] == []
    assert server.admin("GET", "/orgs/demo/conversations?until=2000-01-01")[2]["conversations"] == []
    for bad, field in [("since=2026-02-30", "since"), ("until=tomorrow", "until"), ("before=x", "before"),
                       ("limit=-1", "limit")]:
        status, _, body = server.admin("GET", "/orgs/demo/conversations?" + bad)
        assert status == 400 and f"'{field}'" in error_of(body)["message"], (bad, body)
    assert server.admin("GET", "/orgs/nope/conversations")[0] == 404


def test_the_overview_charts_spend_turns_durations_and_gateway_calls(start_server, llm):
    import time
    from daemon_harness import Tenant, config_for
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": "sk-test"})
    tenant = Tenant(server)
    server.admin("PATCH", "/orgs/acme", {"monthly_spend_limit_usd": 50})
    tenant.agent("paid")
    for i in range(3):
        status, _, body = tenant.invoke("paid", {"message": f"hello {i}"})
        assert status == 200, body
    spent = tenant.settled_usage()["total_spent_usd"]
    assert spent > 0
    # Gateway calls: one refused (no fl-api headers: 400), counted by status.
    status, _, _ = server.request("POST", "/api/metadata-gateway", {}, {"content-type": "application/json"})
    assert status == 400

    deadline = time.monotonic() + 15
    while True:  # gateway counts reach the store every 5 s
        status, _, o = server.admin("GET", "/overview?days=7")
        assert status == 200, o
        if o["gateway_calls_per_day"] or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    acme = next(org for org in o["orgs"] if org["id"] == "acme")
    assert acme["spent_usd"] == spent and acme["monthly_spend_limit_usd"] == 50
    assert next(org for org in o["orgs"] if org["id"] == "demo")["spent_usd"] == 0
    today = time.strftime("%Y-%m-%d", time.gmtime())
    assert {"day": today, "stop_reason": "complete", "turns": 3} in o["turns_per_day"]
    assert o["turn_duration_ms"]["turns"] == 3 and 0 <= o["turn_duration_ms"]["p50"] <= o["turn_duration_ms"]["p95"]
    assert {"day": today, "status": 400, "calls": 1} in o["gateway_calls_per_day"]
    assert o["days"] == 7 and o["since"] <= today and o["month"] == today[:7]
    for bad in ("days=0", "days=91", "days=x"):
        status, _, body = server.admin("GET", "/overview?" + bad)
        assert status == 400 and "'days'" in error_of(body)["message"]


def test_gateway_calls_counted_before_shutdown_are_kept(start_server):
    server = start_server()
    for _ in range(2):
        assert server.request("POST", "/api/metadata-gateway", {}, {"content-type": "application/json"})[0] == 400
    assert server.stop() == 0  # well inside the 5 s flush period: the shutdown writes them
    again = start_server(env={"AGENTGATE_STORE_URL": server.store_url}, args=())
    calls = again.admin("GET", "/overview?days=1")[2]["gateway_calls_per_day"]
    assert [c["calls"] for c in calls if c["status"] == 400] == [2]
