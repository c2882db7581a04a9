"""The metadata gateway through the binary against a fake Salesforce org: every forwarded operation
of the source's table, session expiry with exactly one retry, single-flight refreshes, rotation,
and every gateway error. No request for a bad path reaches the org."""
import json
import threading
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest

from daemon_harness import Tenant  # noqa: F401  (puts tests/ on the path)
from fakes.fake_salesforce import FakeSalesforce
from gateway_harness import Gateway

RULE = {"active": True, "description": "Phone required", "errorConditionFormula": "ISBLANK(Phone)",
        "errorDisplayField": "Phone", "errorMessage": "Phone is required"}


@pytest.fixture
def org():
    fake = FakeSalesforce()
    yield fake
    fake.close()


@pytest.fixture
def gw(org, start_server):
    return Gateway(start_server(), org)


def query_path(soql):
    return "tooling/query?q=" + urllib.parse.quote_plus(soql, safe="'")


def test_validation_rule_lifecycle_and_the_upsert_recipe(gw, org):
    lookup = query_path("SELECT Id FROM ValidationRule WHERE EntityDefinition.QualifiedApiName='Account' "
                        "AND ValidationName='Phone_Required'")
    status, _, found = gw.call({"method": "GET", "path": lookup})
    assert status == 200 and found["ok"] and found["status"] == 200 and found["platformResponse"]["records"] == []
    assert found["endpoint"].startswith("/services/data/v64.0/tooling/query?q=")
    assert len(found["platformRequestId"]) == 32
    # Upsert: not found, so create.
    status, _, created = gw.call({"method": "POST", "path": "tooling/sobjects/ValidationRule",
                                  "metadata": {"FullName": "Account.Phone_Required", "Metadata": RULE}})
    assert status == 200 and created["ok"] and created["status"] == 201
    rule_id = created["platformResponse"]["id"]
    assert rule_id.startswith("03d") and created["endpoint"] == "/services/data/v64.0/tooling/sobjects/ValidationRule"
    # Upsert again: found, so PATCH by id (payload is the alias of metadata).
    _, _, found = gw.call({"method": "GET", "path": lookup})
    assert found["platformResponse"]["records"][0]["Id"] == rule_id
    status, _, updated = gw.call({"method": "PATCH", "path": f"tooling/sobjects/ValidationRule/{rule_id}",
                                  "payload": {"Metadata": dict(RULE, active=False)}})
    assert (status, updated["ok"], updated["status"], updated["platformResponse"]) == (200, True, 204, {})
    assert org.rules[rule_id]["Metadata"]["active"] is False
    status, _, deleted = gw.call({"method": "DELETE", "path": f"tooling/sobjects/ValidationRule/{rule_id}"})
    assert deleted["status"] == 204 and deleted["ok"] is True and rule_id not in org.rules


def test_platform_errors_are_envelopes_with_the_platforms_status(gw):
    status, _, env = gw.call({"method": "GET", "path": "tooling/sobjects/ValidationRule/03dNOPE"})
    assert status == 200 and env["ok"] is False and env["status"] == 404
    assert env["platformResponse"] == [{"message": "The requested resource does not exist", "errorCode": "NOT_FOUND"}]
    status, _, env = gw.call({"method": "GET", "path": query_path("SELECT Id FROM ValidationRule WHERE FullName='Account.X'")})
    assert env["status"] == 400 and env["platformResponse"][0]["errorCode"] == "INVALID_FIELD"


def test_listing_custom_objects_and_all_sobjects(gw):
    soql = ("SELECT QualifiedApiName FROM EntityDefinition WHERE QualifiedApiName LIKE '%__c' "
            "AND IsDeprecatedAndHidden = false AND IsCustomSetting = false ORDER BY QualifiedApiName")
    path = "tooling/query?q=" + urllib.parse.quote_plus(soql, safe="'").replace("%25", "%25")
    status, _, env = gw.call({"method": "GET", "path": path})
    assert status == 200 and [r["QualifiedApiName"] for r in env["platformResponse"]["records"]] == \
        ["Invoice__c", "Shipment__c", "Widget__c"]
    status, _, env = gw.call({"method": "GET", "path": "sobjects", "platformApiVersion": "v62.0"})
    assert env["endpoint"] == "/services/data/v62.0/sobjects"
    custom = [o["name"] for o in env["platformResponse"]["sobjects"] if o["custom"]]
    assert custom == ["Invoice__c", "Shipment__c", "Widget__c"]


def test_deleting_a_custom_field_through_the_metadata_api(gw, org):
    status, _, env = gw.call({"method": "DELETE", "path": "mdapi/CustomField/Account.Legacy_Code__c"})
    assert status == 200 and env["ok"] is True and env["status"] == 200
    assert env["endpoint"] == "/services/Soap/m/64.0"
    assert env["platformResponse"] == {"fullName": "Account.Legacy_Code__c", "success": True, "errors": []}
    soap = [r for r in org.requests if r["path"].startswith("/services/Soap/m/")][-1]
    assert soap["headers"]["content-type"].startswith("text/xml") and "<met:deleteMetadata>" in soap["body"]
    status, _, env = gw.call({"method": "DELETE", "path": "mdapi/CustomField/Account.Legacy_Code__c"})
    assert env["ok"] is False and env["status"] == 200 and env["platformResponse"]["success"] is False
    assert env["platformResponse"]["errors"][0]["statusCode"] == "INVALID_CROSS_REFERENCE_KEY"


def test_deep_or_non_utf8_platform_answers_still_come_back_as_valid_json(gw):
    status, _, env = gw.call({"method": "GET", "path": "/services/apexrest/deep"})
    assert status == 200 and env["ok"], env  # the harness's json.loads proves it is valid JSON
    leaf = env["platformResponse"]
    for _ in range(100):
        leaf = leaf[0]
    assert leaf == {"leaf": True}
    status, _, env = gw.call({"method": "GET", "path": "/services/apexrest/latin1"})
    assert status == 200 and env["platformResponse"]["raw"] == "Caf\ufffd cr\ufffdme", env


def test_a_non_json_answer_is_raw(gw):
    status, _, env = gw.call({"method": "GET", "path": "/services/apexrest/plain"})
    assert env["platformResponse"] == {"raw": "plain text, not JSON"} and env["ok"] is True


def test_an_expired_session_is_refreshed_once_and_retried_once(gw, org):
    assert gw.call({"method": "GET", "path": "sobjects"})[2]["ok"]
    assert org.refreshes == 1
    org.expire_tokens()
    status, _, env = gw.call({"method": "GET", "path": "sobjects"})
    assert status == 200 and env["ok"] and org.refreshes == 2
    org.expire_tokens()
    status, _, env = gw.call({"method": "DELETE", "path": "mdapi/CustomField/Account.Legacy_Code__c"})
    assert env["ok"] is True and org.refreshes == 3  # the SOAP INVALID_SESSION_ID fault refreshes too


def test_a_refresh_failure_is_fl06_and_never_retried(gw, org):
    org.fail_refresh = ("invalid_grant", "expired access/refresh token")
    status, _, body = gw.call({"method": "GET", "path": "sobjects"})
    assert status == 502 and body == {"ok": False, "status": 502, "error": {
        "code": "FL06", "message": body["error"]["message"]}}
    assert "invalid_grant" in body["error"]["message"] and org.refreshes == 1
    assert org.client_secret not in json.dumps(body) and "5Aep86" not in json.dumps(body)


def test_concurrent_calls_share_one_refresh(gw, org):
    with ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(lambda i: gw.call({"method": "GET", "path": "sobjects"}), range(50)))
    assert all(r[0] == 200 and r[2]["ok"] for r in results)
    assert org.refreshes == 1


def test_rotated_refresh_tokens_are_stored_and_used_next(org, start_server):
    org.rotate = True
    s = start_server()
    gw = Gateway(s, org)
    assert gw.call({"method": "GET", "path": "sobjects"})[2]["ok"]
    org.expire_tokens()
    assert gw.call({"method": "GET", "path": "sobjects"})[2]["ok"]  # needs the rotated token
    assert org.refreshes == 2
    store = s.store_url
    s.stop()
    org.expire_tokens()
    again = start_server(args=(), env={"AGENTGATE_STORE_URL": store})
    gw.server = again
    assert gw.call({"method": "GET", "path": "sobjects"})[2]["ok"]  # after a restart, from the store
    assert org.refreshes == 3


def test_a_static_session_works_without_refreshing(org, start_server):
    gw = Gateway(start_server(), org, static=True)
    assert gw.call({"method": "GET", "path": "sobjects"})[2]["ok"]
    org.expire_tokens()
    status, _, env = gw.call({"method": "GET", "path": "sobjects"})
    assert status == 200 and env["status"] == 401 and org.refreshes == 0


def gateway_error(result, status, code):
    got_status, _, body = result
    assert got_status == status, body
    assert body["ok"] is False and body["status"] == status and body["error"]["code"] == code, body


def test_gateway_errors(gw, org, start_server):
    for headers in ({"fl-api-token": None}, {"fl-api-org": None}, {"fl-api-env": None}, {"fl-api-token": "agt_nope"}):
        gateway_error(gw.call({"method": "GET", "path": "sobjects"}, headers), 400, "FL04")
    gw.server.admin("POST", "/orgs/acme/environments", {"name": "dev"})
    gw.server.admin("PUT", "/orgs/acme/environments/dev/grants", {"token_id": gw.token_id, "permissions": ["metadata_read"]})
    gateway_error(gw.call({"method": "GET", "path": "sobjects"}, {"fl-api-env": "dev"}), 400, "FL05")
    gateway_error(gw.call({"method": "TRACE", "path": "sobjects"}), 400, "INVALID_REQUEST")
    gateway_error(gw.call({"method": "GET"}), 400, "INVALID_REQUEST")
    gateway_error(gw.call({"method": "GET", "path": "sobjects", "platformApiVersion": "64"}), 400, "INVALID_REQUEST")
    # An org whose instance is unreachable.
    other = start_server()
    dead = Gateway.__new__(Gateway)
    dead.server = other
    other.admin("POST", "/orgs", {"id": "acme", "name": "Acme"})
    other.admin("POST", "/orgs/acme/environments", {"name": "prod"})
    issued = other.admin("POST", "/orgs/acme/tokens", {"name": "t"})[2]
    dead.token = issued["token"]
    other.admin("PUT", "/orgs/acme/environments/prod/grants", {"token_id": issued["id"], "permissions": ["metadata_read"]})
    other.admin("PUT", "/orgs/acme/environments/prod/crm", {"instance_url": "http://127.0.0.1:1", "access_token": "00D!x"})
    gateway_error(dead.call({"method": "GET", "path": "sobjects"}), 502, "UPSTREAM_UNAVAILABLE")


@pytest.mark.parametrize("path", [
    "../../identity", "tooling/%2e%2e/%2e%2e/secret", "https://evil.example/services/data", "//evil.example/x",
    "/apex/Page", "sobjects\r\nX-Injected: 1", "tooling\\..\\x", "/services/../etc",
    # What the URL grammar refuses is the caller's 400, never a 502 "the platform did not answer".
    "tooling/query?q=100%", "sobjects/Café__c", 'tooling/query?q="x"', "tooling/%252e%252e/secret",
    "tooling/..;jsessionid=1/secret",
])
def test_bad_paths_never_reach_the_org(gw, org, path):
    before = len(org.requests)
    status, _, body = gw.call({"method": "GET", "path": path})
    gateway_error((status, None, body), 400, "INVALID_REQUEST")
    assert "'path'" in body["error"]["message"], body
    assert len(org.requests) == before


def test_the_agent_tool_crm_metadata_uses_the_same_gateway(org, llm, start_server):
    from daemon_harness import API_KEY, config_for
    from fakes.fake_llm import openai_text, openai_tools
    s = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    Gateway(s, org)
    tenant = Tenant(s, existing=True)
    tenant.agent("admin-bot", tools=[{"type": "crm_metadata"}])
    llm.push(openai_tools([("crm_metadata", {"method": "GET", "path": "sobjects"})]), openai_text("3 custom objects"),
             openai_tools([("crm_metadata", {"method": "GET", "path": "../../identity"})]), openai_text("refused"))
    status, _, body = tenant.invoke("admin-bot", {"message": "list custom objects"})
    assert status == 200 and body["response"] == "3 custom objects"
    tool_result = llm.requests[1]["body"]["messages"][-1]["content"]
    assert '"ok":true' in tool_result and "Widget__c" in tool_result
    before = len(org.requests)
    tenant.invoke("admin-bot", {"message": "escape"})
    assert "'path'" in llm.requests[3]["body"]["messages"][-1]["content"] and len(org.requests) == before


def test_the_crm_metadata_tool_is_read_only_unless_the_operator_lists_more(org, llm, start_server):
    from daemon_harness import API_KEY, config_for
    from fakes.fake_llm import openai_text, openai_tools
    s = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    Gateway(s, org)
    tenant = Tenant(s, existing=True)
    delete = ("crm_metadata", {"method": "DELETE", "path": "mdapi/CustomField/Account.Legacy_Code__c"})
    tenant.agent("reader", tools=[{"type": "crm_metadata"}])
    llm.push(openai_tools([delete]), openai_text("I could not delete it"))
    status, _, body = tenant.invoke("reader", {"message": "delete the Legacy_Code field"})
    assert status == 200 and body["terminated_reason"] is None  # the turn goes on after the refusal
    offered = next(t for t in llm.requests[0]["body"]["tools"] if t["function"]["name"] == "crm_metadata")
    assert offered["function"]["parameters"]["properties"]["method"]["enum"] == ["GET"]
    refusal = llm.requests[1]["body"]["messages"][-1]["content"]
    assert "DELETE" in refusal and "allowed methods: GET" in refusal, refusal
    assert not any(r["path"].startswith("/services/Soap/") for r in org.requests)
    assert "Account.Legacy_Code__c" in org.fields
    # An operator who lists DELETE lets the model delete.
    tenant.agent("janitor", tools=[{"type": "crm_metadata", "methods": ["GET", "DELETE"]}])
    llm.push(openai_tools([delete]), openai_text("deleted"))
    assert tenant.invoke("janitor", {"message": "delete the Legacy_Code field"})[2]["response"] == "deleted"
    assert "Account.Legacy_Code__c" not in org.fields
    # A bad methods list is refused naming the field.
    status, _, out = s.admin("POST", "/orgs/acme/agents", {"id": "bad", "config": {
        "name": "bad", "model": {"provider": "offline", "name": "m"},
        "tools": [{"type": "crm_metadata", "methods": ["GET", "TRACE"]}]}})
    assert status == 400 and "config.tools[0].methods[1]" in out["error"]["message"], out


def test_two_servers_refresh_a_rotating_credential_once(org, start_server):
    org.rotate = True  # a second refresh with the same token would fail invalid_grant
    first = start_server()
    gw_a = Gateway(first, org)
    second = start_server(args=(), env={"AGENTGATE_STORE_URL": first.store_url})
    gw_b = Gateway.__new__(Gateway)
    gw_b.server, gw_b.token = second, gw_a.token
    servers = [gw_a, gw_b]
    barrier = threading.Barrier(20)

    def call(i):
        barrier.wait()
        return servers[i % 2].call({"method": "GET", "path": "sobjects"})

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(call, range(20)))
    assert all(r[0] == 200 and r[2]["ok"] for r in results), [r[2] for r in results if r[0] != 200][:2]
    assert org.refreshes == 1


def test_a_changed_instance_url_is_followed_and_stored(gw, org):
    moved = FakeSalesforce()
    try:
        moved.access_tokens = org.access_tokens  # the same org, served from its new instance
        assert gw.call({"method": "GET", "path": "sobjects"})[2]["ok"]
        org.instance_url = moved.url
        org.expire_tokens()
        status, _, env = gw.call({"method": "GET", "path": "sobjects"})
        assert status == 200 and env["ok"]
        assert any(r["path"] == "/services/data/v64.0/sobjects" for r in moved.requests)
        # The next call goes straight to the new instance (it was stored with the session).
        before = len(org.requests)
        assert gw.call({"method": "GET", "path": "sobjects"})[2]["ok"] and len(org.requests) == before
    finally:
        moved.close()
