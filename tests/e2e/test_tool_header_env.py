"""Tool headers never read agentgate's own secrets (docs/daemon.md "Tool headers"): {"env": NAME}
may name only variables [tools] header_env lists, and never AGENTGATE_*, PG*, OTEL_* or a variable
the configuration names for a provider key, the admin token or the master key."""
import json

import pytest

import stores
from conftest import MASTER_KEY, error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text, openai_tools
from test_approvals import tools  # noqa: F401  (a fixture)

LISTED = '\n[tools]\nheader_env = ["TOOL_*"]\n'
ENV = {"FAKE_LLM_KEY": API_KEY, "TOOL_KEY": "tool-key-value", "OTHER_KEY": "other-key-value",
       "PGAPPNAME_SECRET": "pg-value", "OTEL_SECRET": "otel-value"}


def lookup(tools, variable):
    return {"type": "http", "name": "lookup", "description": "Orders", "parameters": {"type": "object"},
            "url": f"http://127.0.0.1:{tools.port}/lookup", "method": "POST",
            "headers": {"X-Team": "support", "X-Key": {"env": variable}}}


def config(variable, tools):
    return {"name": "shop", "model": {"provider": "fake-openai", "name": "gpt-test"},
            "tools": [{"type": "crm_metadata"}, lookup(tools, variable)]}


def stored_before_the_rule(start_server, llm, tools, variable):
    """A store whose deployed version reads `variable`, as a server before this rule let through
    (the version rewritten in the store), and the stopped server that wrote it."""
    first = start_server(config_for(llm) + LISTED, env=ENV, subdir="same")
    tenant = Tenant(first)
    tenant.agent("shop", tools=[lookup(tools, "TOOL_KEY")])
    first.stop()
    stored = json.dumps(config(variable, tools)).replace("'", "''")
    stores.execute(first.store_url, f"UPDATE agent_versions SET config = '{stored}' WHERE agent_id = 'shop'")
    return first, tenant


@pytest.mark.parametrize("variable", ["AGENTGATE_MASTER_KEY", "AGENTGATE_ADMIN_TOKEN", "FAKE_LLM_KEY",
                                      "PGAPPNAME_SECRET", "OTEL_SECRET", "OTHER_KEY"])
def test_the_admin_api_refuses_a_header_naming_a_variable_it_may_not_read(start_server, llm, tools, variable):
    server = start_server(config_for(llm) + LISTED, env=ENV)
    tenant = Tenant(server)
    status, _, body = server.admin("POST", f"/orgs/{tenant.org}/agents", {"id": "shop", "config": config(variable, tools)})
    assert status == 400, body
    error = error_of(body)
    assert error["code"] == "invalid_request"
    assert "'config.tools[1].headers.X-Key'" in error["message"] and variable in error["message"], error
    # A new version is refused alike, and nothing was created.
    tenant.agent("shop", tools=[lookup(tools, "TOOL_KEY")])
    status, _, body = server.admin("POST", f"/orgs/{tenant.org}/agents/shop/versions", {"config": config(variable, tools)})
    assert status == 400 and "'config.tools[1].headers.X-Key'" in error_of(body)["message"], body
    status, _, agent = server.admin("GET", f"/orgs/{tenant.org}/agents/shop")
    assert status == 200 and [v["version"] for v in agent["versions"]] == [1], agent


def test_a_listed_variable_is_sent_to_the_tool(start_server, llm, tools):
    server = start_server(config_for(llm) + LISTED, env=ENV)
    tenant = Tenant(server)
    tenant.agent("shop", tools=[lookup(tools, "TOOL_KEY")])
    llm.push(openai_tools([("lookup", {"order": "A-1"})]), openai_text("Shipped."))
    status, _, body = tenant.invoke("shop", {"message": "where is A-1?"})
    assert status == 200 and body["response"] == "Shipped.", body
    assert tools.calls[0]["headers"]["x-key"] == "tool-key-value"


def test_a_variable_holding_a_line_break_sends_nothing_and_the_model_is_told(start_server, llm, tools):
    """Issue 72 §5: a value read from the environment that would end the header is refused when the
    header is built, naming the header and the variable; the tool is never called."""
    server = start_server(config_for(llm) + LISTED, env={**ENV, "TOOL_KEY": "v\r\nX-Injected: yes"})
    tenant = Tenant(server)
    tenant.agent("shop", tools=[lookup(tools, "TOOL_KEY")])
    llm.push(openai_tools([("lookup", {"order": "A-1"})]), openai_text("I could not look it up."))
    status, _, body = tenant.invoke("shop", {"message": "where is A-1?"})
    assert status == 200, body
    told = [m["content"] for m in llm.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert told and "header 'X-Key' names environment variable TOOL_KEY" in told[0], told
    assert "line break" in told[0] and "X-Injected" not in told[0], told
    assert tools.calls == []


def test_a_deployed_version_the_policy_no_longer_allows_warns_at_start_and_its_calls_fail(start_server, llm, tools):
    """An upgrade: a version stored by a server that accepted any variable still starts; the start
    names it in a warning, and its tool calls fail naming the header, sending nothing."""
    first, tenant = stored_before_the_rule(start_server, llm, tools, "OTHER_KEY")

    again = start_server(config_for(llm) + LISTED, env={**ENV, "AGENTGATE_STORE_URL": first.store_url})
    assert again.logged(lambda e: e.get("event") == "tool_header_env_unlisted"
                        and e.get("field") == "config.tools[1].headers.X-Key" and e.get("variable") == "OTHER_KEY")
    llm.push(openai_tools([("lookup", {"order": "A-1"})]), openai_text("I could not look it up."))
    status, _, body = tenant.via(again).invoke("shop", {"message": "where is A-1?"})
    assert status == 200, body
    told = [m["content"] for m in llm.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert told and told[0].startswith("error: header 'X-Key' names environment variable OTHER_KEY"), told
    assert tools.calls == []
    assert "other-key-value" not in "".join(again.lines)


def test_a_deployed_version_reading_the_servers_own_secret_stops_the_start(start_server, llm, tools):
    first, _ = stored_before_the_rule(start_server, llm, tools, "AGENTGATE_MASTER_KEY")

    with pytest.raises(RuntimeError) as refused:
        start_server(config_for(llm) + LISTED, env={**ENV, "AGENTGATE_STORE_URL": first.store_url})
    message = str(refused.value)
    assert "config.tools[1].headers.X-Key" in message and "AGENTGATE_MASTER_KEY" in message, message
    assert MASTER_KEY not in message
