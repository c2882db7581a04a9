"""/mcp as an OAuth 2.1 protected resource with the built-in authorization server for machine
clients (docs/mcp.md, OAuth): discovery (RFC 9728, RFC 8414), the client-credentials token
endpoint, ES256 access tokens (RFC 9068), their revocation and the signing key's rotation. The
clients are the official MCP SDK's client-credentials provider and jose (tests/counterparts)."""
import base64
import json
import subprocess
import time
import urllib.parse

import pytest

from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text
from counterparts import counterparts_dir


@pytest.fixture
def daemon(llm, start_server):
    llm.reset()
    return Tenant(start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY}))


def base_of(server):
    return f"http://{server.host}:{server.port}"


def register(tenant, name="Agentforce", server=None):
    status, _, client = (server or tenant.server).admin(
        "POST", f"/orgs/{tenant.org}/environments/prod/oauth-clients",
        {"token_id": tenant.token_id, "name": name})
    assert status == 201, client
    return client["client_id"], client["client_secret"]


def raw(server, method, path, body=None, headers=None):
    """A request with headers exactly as given (a Host of our choosing too)."""
    return server.request(method, path, raw=body, headers=headers, timeout=30)


def token_request(server, form, basic=None, host=None, content_type="application/x-www-form-urlencoded"):
    headers = {"content-type": content_type}
    if basic is not None:
        headers["authorization"] = "Basic " + base64.b64encode(basic.encode()).decode()
    if host:
        headers["host"] = host
    return raw(server, "POST", "/oauth/token", urllib.parse.urlencode(form), headers)


def access_token(server, client, host=None, **extra):
    client_id, secret = client
    status, headers, body = token_request(server, {"grant_type": "client_credentials", **extra},
                                          basic=f"{client_id}:{secret}", host=host)
    assert status == 200, body
    assert headers["cache-control"] == "no-store"
    return body


def mcp(server, token, method="tools/list", params=None, host=None):
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2025-11-25"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    if host:
        headers["host"] = host
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    return raw(server, "POST", "/mcp", json.dumps(body), headers)


def node(*args):
    out = subprocess.run(["node", "oauth_client.mjs", *args], cwd=counterparts_dir(),
                         capture_output=True, text=True, timeout=90)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def jose_verify(server, token):
    base = base_of(server)
    return node("verify", "--jwks", base + "/oauth/jwks", "--issuer", base, "--audience", base + "/mcp",
                "--token", token)


def test_the_sdks_client_credentials_provider_discovers_gets_a_token_and_calls_an_agent(daemon, llm):
    daemon.agent("helper", description="Answers questions about orders")
    client_id, secret = register(daemon)
    llm.push(openai_text("Hello over OAuth"))
    base = base_of(daemon.server)
    out = node("mcp", "--url", base + "/mcp", "--client-id", client_id, "--client-secret", secret,
               "--calls", json.dumps([{"name": "helper", "arguments": {"message": "hi"}}]))
    assert [t["name"] for t in out["tools"]] == ["helper"]
    [result] = out["results"]
    assert result["content"][0]["text"] == "Hello over OAuth" and not result.get("isError"), result
    # From a bare 401: the resource's metadata, the server's, a token, then the call again.
    first = out["requests"][:5]
    assert [(m, urllib.parse.urlparse(u).path, s) for m, u, s in first] == [
        ("POST", "/mcp", 401),
        ("GET", "/.well-known/oauth-protected-resource", 200),
        ("GET", "/.well-known/oauth-authorization-server", 200),
        ("POST", "/oauth/token", 200),
        ("POST", "/mcp", 200)], out["requests"]
    # The token is an RFC 9068 JWT that jose verifies against our JWKS.
    verified = jose_verify(daemon.server, out["access_token"])
    assert "payload" in verified, verified
    claims, header = verified["payload"], verified["header"]
    assert header["alg"] == "ES256" and header["typ"] == "at+jwt" and header["kid"]
    assert claims["iss"] == base and claims["aud"] == base + "/mcp"
    assert claims["sub"] == claims["client_id"] == client_id
    assert claims["scope"] == "mcp" and claims["jti"]
    assert 0 < claims["exp"] - claims["iat"] <= 3600
    # The turn ran as the client's API token: it is in that token's org and environment.
    assert llm.requests[-1]["body"]["messages"][-1]["content"] == "hi"


def test_beyond_loopback_without_a_public_url_nothing_is_built_from_the_host(start_server, llm):
    """Issue 72 §5: a server others reach, with no [server] public_url, does not reflect a Host it
    cannot vouch for: the metadata documents and the token endpoint answer 503 naming the setting,
    and /mcp's 401 points at no metadata."""
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, "AGENTGATE_SERVER_LISTEN": "0.0.0.0:0"})
    server.host = "127.0.0.1"  # it listens on every address; the test speaks to this machine's
    evil = {"host": "evil.example.com"}
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"):
        status, _, doc = raw(server, "GET", path, headers=evil)
        assert status == 503 and "public_url" in doc["error"]["message"], doc
        assert "evil.example.com" not in json.dumps(doc)
    status, headers, body = token_request(server, {"grant_type": "client_credentials"}, basic="agc_1:x",
                                          host="evil.example.com")
    assert (status, body["error"]) == (503, "temporarily_unavailable") and "public_url" in body["error_description"]
    status, headers, _ = raw(server, "POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
                             {"content-type": "application/json", "host": "evil.example.com"})
    assert status == 401 and headers["www-authenticate"] == "Bearer", headers


def test_discovery_documents_and_the_challenge_use_the_public_url(start_server, llm):
    server = start_server(config_for(llm, 'public_url = "https://gw.example.com/agentgate/"'),
                          env={"FAKE_LLM_KEY": API_KEY})
    base = "https://gw.example.com/agentgate"
    status, headers, _ = mcp(server, None)
    assert status == 401
    assert headers["www-authenticate"] == \
        f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource"'
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
        status, _, doc = server.request("GET", path)
        assert status == 200, doc
        assert doc["resource"] == base + "/mcp" and doc["authorization_servers"] == [base], doc
        assert doc["scopes_supported"] == ["mcp"] and doc["bearer_methods_supported"] == ["header"]
    status, _, meta = server.request("GET", "/.well-known/oauth-authorization-server")
    assert status == 200
    assert meta["issuer"] == base
    assert meta["token_endpoint"] == base + "/oauth/token" and meta["jwks_uri"] == base + "/oauth/jwks"
    assert meta["grant_types_supported"] == ["client_credentials"]
    assert meta["token_endpoint_auth_methods_supported"] == ["client_secret_basic", "client_secret_post"]
    assert meta["response_types_supported"] == []
    # The authorization endpoint the SDK's parser needs refuses: there is no user to ask.
    status, _, refused = server.request("GET", "/oauth/authorize?response_type=code&client_id=x")
    assert status == 400 and refused["error"] == "unsupported_response_type", refused
    # A presented but refused credential is named invalid_token in the challenge.
    status, headers, body = mcp(server, "not-a-token")
    assert status == 401 and body["error"]["code"] == "unauthenticated"
    assert 'error="invalid_token"' in headers["www-authenticate"]


def test_the_token_endpoint_answers_each_bad_request_with_the_protocols_own_error(daemon):
    client_id, secret = register(daemon)
    grant = {"grant_type": "client_credentials"}
    ours = base_of(daemon.server) + "/mcp"

    def refused(expected_status, expected_error, *args, **kwargs):
        status, headers, body = token_request(daemon.server, *args, **kwargs)
        assert (status, body.get("error") if isinstance(body, dict) else body) == \
            (expected_status, expected_error), body
        assert body["error_description"] and secret not in body["error_description"]
        assert headers["cache-control"] == "no-store"
        return headers

    headers = refused(401, "invalid_client", grant, basic="agc_unknown:whatever")
    assert headers["www-authenticate"].startswith("Basic")
    refused(401, "invalid_client", grant, basic=f"{client_id}:wrong-{secret}")
    refused(401, "invalid_client", {**grant, "client_id": client_id, "client_secret": "wrong"})
    refused(401, "invalid_client", grant)  # no client authentication at all
    refused(400, "unsupported_grant_type", {"grant_type": "authorization_code", "code": "x"},
            basic=f"{client_id}:{secret}")
    refused(400, "invalid_request", {"scope": "mcp"}, basic=f"{client_id}:{secret}")
    refused(400, "invalid_scope", {**grant, "scope": "mcp admin"}, basic=f"{client_id}:{secret}")
    refused(400, "invalid_target", {**grant, "resource": "https://elsewhere.example/mcp"},
            basic=f"{client_id}:{secret}")
    refused(400, "invalid_request", {**grant, "client_secret": secret}, basic=f"{client_id}:{secret}")
    refused(400, "invalid_request", grant, basic=f"{client_id}:{secret}", content_type="application/json")
    # A Basic header that is not base64, and another scheme.
    status, headers, body = raw(daemon.server, "POST", "/oauth/token", "grant_type=client_credentials",
                                {"content-type": "application/x-www-form-urlencoded",
                                 "authorization": "Basic %%%not-base64"})
    assert (status, body["error"]) == (401, "invalid_client") and "www-authenticate" in headers
    status, _, body = raw(daemon.server, "POST", "/oauth/token", "grant_type=client_credentials",
                          {"content-type": "application/x-www-form-urlencoded",
                           "authorization": "Bearer abc"})
    assert (status, body["error"]) == (401, "invalid_client")
    # client_secret_post, our resource and our scope are accepted.
    status, _, body = token_request(daemon.server, {**grant, "client_id": client_id, "client_secret": secret,
                                                    "resource": ours, "scope": "mcp"})
    assert status == 200 and body["token_type"] == "Bearer" and body["scope"] == "mcp", body
    assert body["expires_in"] == 3600
    # A client whose API token was revoked gets no token.
    daemon.server.admin("DELETE", f"/orgs/{daemon.org}/tokens/{daemon.token_id}")
    refused(400, "unauthorized_client", grant, basic=f"{client_id}:{secret}")


def test_a_token_for_another_audience_with_a_bad_signature_or_expired_is_refused(start_server, llm):
    server = start_server(config_for(llm) + "\n[oauth]\naccess_token_lifetime_seconds = 2\n",
                          env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("helper")
    client = register(tenant)
    host = f"127.0.0.1:{server.port}"
    token = access_token(server, client, host=host)["access_token"]
    status, _, body = mcp(server, token, host=host)
    assert status == 200 and [t["name"] for t in body["result"]["tools"]] == ["helper"], body

    def refusal(presented, host=host):
        status, headers, body = mcp(server, presented, host=host)
        assert status == 401, body
        assert 'error="invalid_token"' in headers["www-authenticate"]
        return body["error"]["message"]

    # Issued for http://127.0.0.1:port: at http://localhost:port it is another resource.
    assert "another" in refusal(token, host=f"localhost:{server.port}")
    header, payload, signature = token.split(".")
    flipped = signature[:10] + ("A" if signature[10] != "A" else "B") + signature[11:]
    assert "signature" in refusal(f"{header}.{payload}.{flipped}")
    forged = base64.urlsafe_b64encode(json.dumps({"alg": "none", "typ": "at+jwt", "kid": "x"}).encode())
    assert "ES256" in refusal(forged.decode().rstrip("=") + "." + payload + ".")
    assert "not a signed JWT" in refusal("a.b")
    status, _, _ = raw(server, "POST", "/mcp", "{}", {"content-type": "application/json",
                                                      "authorization": "Bearer"})
    assert status == 401
    time.sleep(2.2)
    assert "expired" in refusal(token)
    assert server.request("GET", "/healthz")[0] == 200  # nothing above was a 5xx or a crash


@pytest.mark.postgres
def test_a_token_from_one_server_works_on_another_until_its_client_or_api_token_is_revoked(start_server, llm):
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, "AGENTGATE_STORE_URL": first.store_url})
    tenant = Tenant(first)
    tenant.agent("helper")
    host = "gw.example"  # one name for both, as behind a balancer
    revoked_client = register(tenant, "one")
    kept_client = register(tenant, "two")
    token = access_token(first, revoked_client, host=host)["access_token"]
    other = access_token(first, kept_client, host=host)["access_token"]
    for server in (first, second):
        assert mcp(server, token, host=host)[0] == 200
    first.admin("DELETE", f"/orgs/{tenant.org}/environments/prod/oauth-clients/{revoked_client[0]}")
    assert mcp(first, token, host=host)[0] == 401  # here at once
    started = time.monotonic()
    while mcp(second, token, host=host)[0] != 401:
        assert time.monotonic() - started < 1.5, "the other server still accepts a revoked client's token"
        time.sleep(0.05)
    assert mcp(second, other, host=host)[0] == 200
    # Revoking the API token the client acts as ends its tokens too.
    first.admin("DELETE", f"/orgs/{tenant.org}/tokens/{tenant.token_id}")
    started = time.monotonic()
    while True:
        status, _, body = mcp(second, other, host=host)
        if status == 401:
            assert "API token" in body["error"]["message"]
            break
        assert time.monotonic() - started < 1.5, "the other server still accepts a revoked token's client"
        time.sleep(0.05)


def test_a_revoked_client_or_api_token_ends_its_tokens_at_once_here(daemon):
    daemon.agent("helper")
    client = register(daemon)
    token = access_token(daemon.server, client)["access_token"]
    assert mcp(daemon.server, token)[0] == 200
    daemon.server.admin("DELETE", f"/orgs/{daemon.org}/environments/prod/oauth-clients/{client[0]}")
    status, _, body = mcp(daemon.server, token)
    assert status == 401 and "revoked" in body["error"]["message"], body
    assert token_request(daemon.server, {"grant_type": "client_credentials"},
                         basic=f"{client[0]}:{client[1]}")[2]["error"] == "invalid_client"


def test_jose_verifies_tokens_signed_before_and_after_a_key_rotation(daemon):
    daemon.agent("helper")
    client = register(daemon)
    before = access_token(daemon.server, client)["access_token"]
    assert "payload" in jose_verify(daemon.server, before)
    status, _, rotated = daemon.server.admin("POST", "/oauth/signing-keys/rotate")
    assert status == 201 and rotated["current"] is True, rotated
    after = access_token(daemon.server, client)["access_token"]
    kids = [jose_verify(daemon.server, t).get("header", {}).get("kid") for t in (before, after)]
    assert kids[0] and kids[1] == rotated["kid"] and kids[0] != kids[1], kids
    # Both stay accepted at /mcp: the old key verifies until its tokens have expired.
    assert mcp(daemon.server, before)[0] == 200 and mcp(daemon.server, after)[0] == 200
    status, _, keys = daemon.server.admin("GET", "/oauth/signing-keys")
    assert status == 200
    listed = {k["kid"]: k for k in keys["signing_keys"]}
    assert listed[kids[1]]["current"] and listed[kids[1]]["retired_at"] is None
    assert not listed[kids[0]]["current"] and listed[kids[0]]["retired_at"]
    assert all("sealed_private" not in k and "private" not in json.dumps(k) for k in keys["signing_keys"])
    status, _, jwks = daemon.server.request("GET", "/oauth/jwks")
    assert {k["kid"] for k in jwks["keys"]} == set(kids)
    assert all(set(k) == {"kty", "crv", "x", "y", "kid", "use", "alg"} for k in jwks["keys"])
    # The admin API's signing-key calls need the admin token.
    assert daemon.server.admin("POST", "/oauth/signing-keys/rotate", token=None)[0] == 401


def test_a_revoked_signing_key_ends_its_tokens_here_at_once_and_elsewhere_within_a_second(start_server, llm):
    """Issue 72 §5: POST /admin/v1/oauth/signing-keys/{kid}/revoke deletes the key; its tokens stop
    working on this server at once and on another sharing the store within the tenant cache's
    second; the next token is signed with a new key."""
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, "AGENTGATE_STORE_URL": first.store_url})
    tenant = Tenant(first)
    tenant.agent("helper")
    host = "gw.example"
    client = register(tenant)
    token = access_token(first, client, host=host)["access_token"]
    for server in (first, second):
        assert mcp(server, token, host=host)[0] == 200
    status, _, keys = first.admin("GET", "/oauth/signing-keys")
    kid = keys["signing_keys"][0]["kid"]
    assert first.admin("POST", "/oauth/signing-keys/no-such-kid/revoke")[0] == 404
    assert first.admin("POST", f"/oauth/signing-keys/{kid}/revoke", token=None)[0] == 401
    status, _, revoked = first.admin("POST", f"/oauth/signing-keys/{kid}/revoke")
    assert status == 200 and revoked == {"kid": kid, "revoked": True}, revoked
    status, _, body = mcp(first, token, host=host)
    assert status == 401 and "signing key" in body["error"]["message"], body
    started = time.monotonic()
    while mcp(second, token, host=host)[0] != 401:
        assert time.monotonic() - started < 1.5, "the other server still accepts a revoked key's token"
        time.sleep(0.05)
    fresh = access_token(first, client, host=host)["access_token"]
    assert mcp(first, fresh, host=host)[0] == 200
    # The other server reads an unknown kid's keys at most once a second: within it, it knows it.
    started = time.monotonic()
    while mcp(second, fresh, host=host)[0] != 200:
        assert time.monotonic() - started < 1.5, "the other server never took the new key's token"
        time.sleep(0.05)
    status, _, jwks = first.request("GET", "/oauth/jwks")
    assert kid not in {k["kid"] for k in jwks["keys"]}, jwks


def cache_bytes(server):
    status, _, text = server.request("GET", "/metrics")
    assert status == 200
    line = [x for x in text.splitlines() if x.startswith("agentgate_tenant_cache_bytes ")]
    assert line, text
    return float(line[0].split()[1])


def test_strangers_ids_hold_no_memory_and_a_large_body_is_413(daemon):
    """No credential pins memory: made-up client ids of any length are refused before any lookup
    and the tenant cache's bytes stay flat; a body over 8 KiB is refused whole (issue 72, part 3)."""
    server = daemon.server
    grant = {"grant_type": "client_credentials", "client_secret": "x"}
    before = cache_bytes(server)
    for i in range(2000):
        form = {**grant, "client_id": f"{i}-" + "x" * 6000}
        status, headers, body = token_request(server, form)
        assert (status, body["error"]) == (401, "invalid_client"), body
        assert headers["cache-control"] == "no-store"
    # Shaped like ours but unknown: the same answer.
    status, _, body = token_request(server, {**grant, "client_id": "agc_0123456789abcdef"})
    assert (status, body["error"]) == (401, "invalid_client"), body
    assert cache_bytes(server) - before < 4096, (before, cache_bytes(server))

    status, headers, body = token_request(server, {**grant, "client_id": "agc_" + "a" * 9000})
    assert status == 413 and body["error"] == "invalid_request", body
    assert headers["cache-control"] == "no-store"
