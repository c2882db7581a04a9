"""The gateway's CRM credentials through the binary: a replacement takes effect on the next call on
the server that took it and within 1 s on every other, and CRM URLs are https unless the operator allows plain http (a fake org over TLS)."""
import threading
import time

import pytest

from daemon_harness import Tenant  # noqa: F401  (puts tests/ on the path)
from fakes.fake_salesforce import FakeSalesforce
from fakes.http_base import make_certificate
from gateway_harness import Gateway

SOBJECTS = {"method": "GET", "path": "sobjects"}
HTTPS_ONLY = {"AGENTGATE_CRM_ALLOW_HTTP": "false"}


@pytest.fixture
def orgs():
    made = []

    def make(**kwargs):
        made.append(FakeSalesforce(**kwargs))
        return made[-1]

    yield make
    for org in made:
        org.close()


def data_calls(org):
    return [r for r in org.requests if r["path"].startswith("/services/data/")]


def static_session(org):
    token = "00D5g0000012345!" + org.url[-5:]
    org.access_tokens.add(token)
    return {"instance_url": org.url, "access_token": token}


def test_replaced_credentials_are_used_at_once_here_and_within_a_second_on_every_server(orgs, start_server):
    old, new = orgs(), orgs()
    first = start_server()
    second = start_server(args=(), env={"AGENTGATE_STORE_URL": first.store_url})
    gw = Gateway(first, old, static=True)
    via_second = Gateway.__new__(Gateway)
    via_second.server, via_second.token = second, gw.token
    for g in (gw, via_second):  # both servers now hold a session for the old org
        assert g.call(SOBJECTS)[2]["ok"]
    assert len(data_calls(old)) == 2
    assert first.admin("PUT", "/orgs/acme/environments/prod/crm", static_session(new))[0] == 200
    written = time.monotonic()
    status, _, envelope = gw.call(SOBJECTS)  # the server that took the write: the next call
    assert status == 200 and envelope["ok"], envelope
    assert len(data_calls(new)) == 1
    while True:  # the other server reads the credentials' version through a cache fresh for 1 s
        sent = time.monotonic()
        status, _, envelope = via_second.call(SOBJECTS)
        assert status == 200 and envelope["ok"], envelope
        if len(data_calls(new)) == 2:
            break
        assert sent - written < 1.0, "the other server used replaced credentials more than 1 s on"
        time.sleep(0.05)


def test_credentials_moved_from_a_dead_instance_work_at_once(orgs, start_server):
    server = start_server()
    live = orgs()
    gw = Gateway(server, live, static=True)
    dead = {"instance_url": "http://127.0.0.1:1", "access_token": "00D5g0000012345!DEAD"}
    assert server.admin("PUT", "/orgs/acme/environments/prod/crm", dead)[0] == 200
    status, _, body = gw.call(SOBJECTS)
    assert status == 502 and body["error"]["code"] == "UPSTREAM_UNAVAILABLE"
    assert server.admin("PUT", "/orgs/acme/environments/prod/crm", static_session(live))[0] == 200
    status, _, envelope = gw.call(SOBJECTS)
    assert status == 200 and envelope["ok"], envelope


def test_a_refresh_never_overwrites_credentials_put_while_it_ran(orgs, start_server):
    slow, replacement = orgs(), orgs()
    server = start_server()
    gw = Gateway(server, slow)
    slow.token_delay = 1.0  # the token endpoint answers after a second
    results = []
    caller = threading.Thread(target=lambda: results.append(gw.call(SOBJECTS)))
    caller.start()
    while slow.refreshes == 0:
        threading.Event().wait(0.01)
    # The operator moves the environment to another org while the refresh is running.
    assert server.admin("PUT", "/orgs/acme/environments/prod/crm", static_session(replacement))[0] == 200
    caller.join(10)
    # The refresh's save was refused (the version moved), so even the call that started it used
    # the operator's new credentials; the old org's session was never stored over them.
    assert results and results[0][0] == 200 and results[0][2]["ok"], results
    assert gw.call(SOBJECTS)[2]["ok"]
    assert data_calls(slow) == [] and len(data_calls(replacement)) == 2


def test_crm_urls_must_be_https_unless_the_operator_allows_http(orgs, start_server):
    server = start_server(env=HTTPS_ONLY)
    server.admin("POST", "/orgs", {"id": "acme", "name": "Acme"})
    server.admin("POST", "/orgs/acme/environments", {"name": "prod"})
    put = lambda creds: server.admin("PUT", "/orgs/acme/environments/prod/crm", creds)
    status, _, body = put({"login_url": "http://login.example", "client_id": "c", "refresh_token": "r"})
    assert status == 400 and "'login_url'" in body["error"]["message"] and "https" in body["error"]["message"]
    status, _, body = put({"instance_url": "http://my.example", "access_token": "t"})
    assert status == 400 and "'instance_url'" in body["error"]["message"]
    status, _, body = put({"login_url": "https://login.example", "client_id": "c", "refresh_token": "r",
                           "instance_url": "http://my.example"})
    assert status == 400 and "'instance_url'" in body["error"]["message"]
    assert put({"login_url": "https://login.example", "client_id": "c", "refresh_token": "r"})[0] == 200


def test_an_https_org_works_and_a_token_endpoint_may_not_downgrade_it(orgs, start_server, tmp_path):
    certificate = make_certificate(str(tmp_path))
    org = orgs(certificate=certificate)
    org.rotate = True
    server = start_server(env=dict(HTTPS_ONLY, AGENTGATE_UPSTREAM_CA_FILE=certificate[0]))
    gw = Gateway(server, org)
    status, _, envelope = gw.call(SOBJECTS)
    assert status == 200 and envelope["ok"], envelope
    assert org.url.startswith("https://")

    # The token endpoint now sends the session to a plain-http instance: refused, nothing sent there.
    plain = orgs()
    plain.access_tokens = org.access_tokens
    org.instance_url = plain.url
    org.expire_tokens()
    status, _, body = gw.call(SOBJECTS)
    assert status == 502 and body["error"]["code"] == "FL06", body
    assert "https" in body["error"]["message"]
    assert plain.requests == []
    # The refresh token it rotated was kept: once the endpoint behaves, the next refresh works.
    org.instance_url = org.url
    status, _, envelope = gw.call(SOBJECTS)
    assert status == 200 and envelope["ok"], envelope
    assert org.refreshes == 3


def test_a_refresh_cut_short_by_its_turns_cap_still_saves_the_rotated_token(orgs, llm, start_server):
    """Salesforce rotates the refresh token after the turn that asked for it hit its cap: the
    refresh completes anyway, so the credential is not dead."""
    from daemon_harness import API_KEY, config_for
    from fakes.fake_llm import openai_text, openai_tools
    org = orgs()
    org.rotate, org.token_delay = True, 2.5
    s = start_server(config_for(llm, "answer_early_seconds = 1\nturn_timeout_seconds = 2"),
                     env={"FAKE_LLM_KEY": API_KEY})
    gw = Gateway(s, org)
    tenant = Tenant(s, existing=True)
    tenant.agent("admin-bot", tools=[{"type": "crm_metadata"}])
    llm.push(openai_tools([("crm_metadata", SOBJECTS)]), openai_text("never reached"))
    assert tenant.invoke("admin-bot", {"message": "list the objects"})[0] == 504
    status, _, envelope = gw.call(SOBJECTS)
    assert status == 200 and envelope["ok"], envelope
    assert org.refreshes == 1  # the rotated token was saved; no second refresh was needed


def test_a_refused_refresh_token_is_not_sent_again_until_the_credentials_change(orgs, start_server):
    org = orgs()
    s = start_server()
    gw = Gateway(s, org)
    org.fail_refresh = ("invalid_grant", "expired access/refresh token")
    for _ in range(3):
        status, _, body = gw.call(SOBJECTS)
        assert status == 502 and body["error"]["code"] == "FL06" and "invalid_grant" in body["error"]["message"]
    assert org.refreshes == 1
    org.fail_refresh = None
    creds = {"login_url": org.url, "client_id": org.client_id, "client_secret": org.client_secret,
             "refresh_token": next(iter(org.refresh_tokens))}
    assert s.admin("PUT", "/orgs/acme/environments/prod/crm", creds)[0] == 200
    status, _, envelope = gw.call(SOBJECTS)
    assert status == 200 and envelope["ok"] and org.refreshes == 2, envelope


def test_one_deadline_covers_the_whole_gateway_call(orgs, start_server):
    org = orgs()
    org.token_delay = 2
    s = start_server(env={"AGENTGATE_CRM_CALL_TIMEOUT_SECONDS": "1"})
    gw = Gateway(s, org)
    started = time.monotonic()
    status, _, body = gw.call(SOBJECTS)
    assert status == 502 and body["error"]["code"] == "UPSTREAM_UNAVAILABLE", body
    assert "call_timeout_seconds" in body["error"]["message"] and time.monotonic() - started < 1.8
    # The refresh that call started was not abandoned: its session serves the next calls.
    deadline = time.monotonic() + 5
    while gw.call(SOBJECTS)[0] != 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    status, _, envelope = gw.call(SOBJECTS)
    assert status == 200 and envelope["ok"] and org.refreshes == 1, envelope


def test_the_operator_sees_when_credentials_were_set_and_how_the_last_refresh_went(orgs, start_server):
    org = orgs()
    s = start_server()
    status, _, body = s.admin("GET", "/orgs/demo/environments/dev/crm")
    assert status == 200 and body == {"org_id": "demo", "env": "dev", "set": False}
    assert s.admin("GET", "/orgs/demo/environments/nope/crm")[0] == 404
    gw = Gateway(s, org)
    status, _, body = s.admin("GET", "/orgs/acme/environments/prod/crm")
    assert status == 200 and body["set"] and body["kind"] == "refresh_token" and body["login_url"] == org.url
    assert body["last_refresh"] is None and body["set_at"].endswith("Z")
    org.fail_refresh = ("invalid_grant", "expired access/refresh token")
    assert gw.call(SOBJECTS)[0] == 502
    last = s.admin("GET", "/orgs/acme/environments/prod/crm")[2]["last_refresh"]
    assert last["ok"] is False and "invalid_grant" in last["error"]
    org.fail_refresh = None
    secret = next(iter(org.refresh_tokens))
    creds = {"login_url": org.url, "client_id": org.client_id, "client_secret": org.client_secret,
             "refresh_token": secret}
    assert s.admin("PUT", "/orgs/acme/environments/prod/crm", creds)[0] == 200
    assert s.admin("GET", "/orgs/acme/environments/prod/crm")[2]["last_refresh"] is None  # new ones
    assert gw.call(SOBJECTS)[0] == 200
    status, _, body = s.admin("GET", "/orgs/acme/environments/prod/crm")
    assert body["last_refresh"]["ok"] is True and "error" not in body["last_refresh"]
    for value in (secret, org.client_secret, *org.access_tokens):
        assert value not in str(body)  # never a secret
    s.admin("PUT", "/orgs/acme/environments/prod/crm", static_session(org))
    body = s.admin("GET", "/orgs/acme/environments/prod/crm")[2]
    assert body["kind"] == "static_session" and body["instance_url"] == org.url and "login_url" not in body
