"""The metadata gateway needs a grant on the environment (docs/gateway.md "Permissions"):
metadata_read for reads, metadata_write for every other call (write implies read), 403 FL07
without, granted and revoked by the admin API, through the binary (the
upgraded store on both)."""
import pytest

import stores
from daemon_harness import Tenant  # noqa: F401  (puts tests/ on the path)
from gateway_harness import Gateway
from test_gateway import gw, org  # noqa: F401  (the fake org and a gateway on it: fixtures)

GET = {"method": "GET", "path": "sobjects"}
POST = {"method": "POST", "path": "tooling/sobjects/ValidationRule", "metadata": {"FullName": "Account.X"}}
DELETE = {"method": "DELETE", "path": "mdapi/CustomField/Account.Legacy_Code__c"}
GRANTS = "/orgs/acme/environments/prod/grants"


def new_token(server):
    status, _, tok = server.admin("POST", "/orgs/acme/tokens", {"name": "ops"})
    assert status == 201, tok
    return tok


def call_as(gw, token, body):
    h = {"content-type": "application/json", "fl-api-org": "acme", "fl-api-env": "prod", "fl-api-token": token}
    return gw.server.request("POST", "/api/metadata-gateway", body, h)


def assert_refused(answer, permission):
    status, _, body = answer
    assert status == 403, body
    assert body["ok"] is False and body["status"] == 403 and body["error"]["code"] == "FL07", body
    assert permission in body["error"]["message"], body


def test_a_new_token_has_no_access_until_granted_and_read_allows_only_reads(gw, org):
    tok = new_token(gw.server)
    assert tok["metadata_grants"] == []  # said in the answer, as in the docs
    before = len(org.requests)
    assert_refused(call_as(gw, tok["token"], GET), "metadata_read")
    assert_refused(call_as(gw, tok["token"], POST), "metadata_write")
    assert len(org.requests) == before  # nothing reached the org

    status, _, grant = gw.server.admin("PUT", GRANTS, {"token_id": tok["id"], "permissions": ["metadata_read"]})
    assert status == 200 and grant == {"token_id": tok["id"], "env": "prod", "permissions": ["metadata_read"]}, grant
    status, _, body = call_as(gw, tok["token"], GET)
    assert status == 200 and body["ok"] is True, body
    assert_refused(call_as(gw, tok["token"], POST), "metadata_write")
    assert_refused(call_as(gw, tok["token"], DELETE), "metadata_write")

    assert gw.server.admin("PUT", GRANTS, {"token_id": tok["id"], "permissions": ["metadata_write"]})[0] == 200
    assert call_as(gw, tok["token"], GET)[0] == 200  # write implies read
    status, _, body = call_as(gw, tok["token"], DELETE)
    assert status == 200 and body["status"] == 200, body


def test_grants_are_listed_and_a_revoked_one_stops_at_once(gw):
    tok = new_token(gw.server)
    assert gw.server.admin("PUT", GRANTS, {"token_id": tok["id"], "permissions": ["metadata_write"]})[0] == 200
    assert call_as(gw, tok["token"], GET)[0] == 200
    status, _, listed = gw.server.admin("GET", GRANTS)
    assert status == 200, listed
    assert {"token_id": tok["id"], "env": "prod", "permissions": ["metadata_write"]} in listed["grants"]
    assert {"token_id": gw.token_id, "env": "prod", "permissions": ["metadata_write"]} in listed["grants"]

    status, _, revoked = gw.server.admin("DELETE", f"{GRANTS}/{tok['id']}")
    assert status == 200 and revoked["permissions"] == [], revoked
    assert_refused(call_as(gw, tok["token"], GET), "metadata_read")
    assert tok["id"] not in [g["token_id"] for g in gw.server.admin("GET", GRANTS)[2]["grants"]]
    assert call_as(gw, gw.token, GET)[0] == 200  # another token's grant is untouched


def test_bad_grants_are_refused_naming_the_field(gw, start_server):
    tok = new_token(gw.server)
    status, _, body = gw.server.admin("PUT", GRANTS, {"token_id": tok["id"], "permissions": ["chat"]})
    assert status == 400 and "'permissions[0]'" in body["error"]["message"], body
    status, _, body = gw.server.admin("PUT", GRANTS, {"token_id": "nope", "permissions": ["metadata_read"]})
    assert status == 400 and "'token_id'" in body["error"]["message"], body
    status, _, body = gw.server.admin("PUT", GRANTS, {"permissions": ["metadata_read"]})
    assert status == 400 and "'token_id'" in body["error"]["message"], body
    status, _, body = gw.server.admin("PUT", "/orgs/acme/environments/staging/grants",
                                      {"token_id": tok["id"], "permissions": ["metadata_read"]})
    assert status == 404, body
    # A token of another organization cannot be granted here.
    gw.server.admin("POST", "/orgs", {"id": "other", "name": "Other"})
    _, _, foreign = gw.server.admin("POST", "/orgs/other/tokens", {"name": "x"})
    status, _, body = gw.server.admin("PUT", GRANTS, {"token_id": foreign["id"], "permissions": ["metadata_read"]})
    assert status == 400 and "'token_id'" in body["error"]["message"], body


@pytest.mark.both_stores
def test_an_upgraded_store_grants_write_to_every_token_it_had(org, start_server):
    """A store written before the rule: its tokens keep the access they had (write on every
    environment of their org); a token made afterwards has none."""
    first = start_server(subdir="same")
    gw = Gateway(first, org)
    first.admin("POST", "/orgs/acme/environments", {"name": "dev"})
    old = new_token(first)
    first.stop()
    # The store as the server before this change left it: no grants table, its migration not run
    # (PostgreSQL's 20, and 21 after it, which runs again as it stands; SQLite's 22, and 23 after it
    # dropped the turns' run columns that build had; its messages named no turn, 25; its queue
    # tickets were never superseded nor a run's, 28; no run was known to be a background one, 29; no
    # conversation had metadata, 30; no deployment was discoverable and no index listed an agent's
    # runs, 32; no webhook was a task's, 33).
    if stores.KIND == "postgres":
        before = "DROP TABLE environment_grants; DELETE FROM schema_migrations WHERE version >= 20;"
    else:
        before = ("DROP TABLE environment_grants; DELETE FROM schema_migrations WHERE version >= 22; "
                  "ALTER TABLE turns ADD COLUMN run_created_at_ms INTEGER NOT NULL DEFAULT 0; "
                  "ALTER TABLE turns ADD COLUMN run TEXT NOT NULL DEFAULT ''; "
                  "ALTER TABLE turns ADD COLUMN run_result TEXT NOT NULL DEFAULT ''; "
                  "ALTER TABLE turns ADD COLUMN run_events TEXT NOT NULL DEFAULT ''; "
                  "CREATE INDEX turns_runs_by_env ON turns(org_id, env, run_created_at_ms) "
                  "WHERE run_created_at_ms > 0; "
                  "ALTER TABLE messages DROP COLUMN turn_id; "
                  "DROP INDEX conversation_turn_queue_by_run; "
                  "ALTER TABLE conversation_turn_queue DROP COLUMN run_id; "
                  "ALTER TABLE conversation_turn_queue DROP COLUMN superseded; "
                  "DROP INDEX runs_background_running_by_org; DROP INDEX runs_queued_by_org_age; "
                  "ALTER TABLE runs DROP COLUMN background; "
                  "ALTER TABLE conversations DROP COLUMN metadata; "
                  "DROP INDEX runs_by_agent; ALTER TABLE deployments DROP COLUMN a2a_discoverable; "
                  "DROP INDEX webhooks_by_run; ALTER TABLE webhooks DROP COLUMN run_id; "
                  "ALTER TABLE webhooks DROP COLUMN config_id; ALTER TABLE webhooks DROP COLUMN format; "
                  "ALTER TABLE webhooks DROP COLUMN auth_scheme;")
    stores.execute(first.store_url, before)
    again = start_server(env={"AGENTGATE_STORE_URL": first.store_url})
    gw.server = again
    for env in ("prod", "dev"):
        status, _, listed = again.admin("GET", f"/orgs/acme/environments/{env}/grants")
        assert status == 200, listed
        assert {"token_id": old["id"], "env": env, "permissions": ["metadata_write"]} in listed["grants"], listed
    status, _, body = call_as(gw, old["token"], POST)
    assert status == 200 and body["endpoint"].endswith("/tooling/sobjects/ValidationRule"), body  # forwarded
    fresh = new_token(again)
    assert_refused(call_as(gw, fresh["token"], GET), "metadata_read")


def test_the_demo_token_may_use_the_gateway(start_server):
    s = start_server()
    creds = s.demo_credentials()
    h = {"content-type": "application/json", "fl-api-org": "demo", "fl-api-env": "dev", "fl-api-token": creds["token"]}
    status, _, body = s.request("POST", "/api/metadata-gateway", GET, h)
    # Granted: what stops it is that the demo has no CRM credentials yet (FL05), not a 403.
    assert status == 400 and body["error"]["code"] == "FL05", body
