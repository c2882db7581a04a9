"""Shared set-up for the Daemon's black-box tests: a server wired to the fake providers, and a tenant."""
import os
import time
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from fakes.fake_llm import FakeLlm, FakeToolServer  # noqa: E402

API_KEY = "sk-test-key-0123456789abcdefghij"


def config_for(llm, server_extra=""):
    return f"""
[server]
{server_extra}
[[providers]]
name = "fake-openai"
kind = "openai"
base_url = "http://127.0.0.1:{llm.port}/v1"
api_key_env = "FAKE_LLM_KEY"

[[providers]]
name = "fake-anthropic"
kind = "anthropic"
base_url = "http://127.0.0.1:{llm.port}"
api_key_env = "FAKE_LLM_KEY"

[prices."fake-openai/gpt-test"]
input_per_mtok = 1000
output_per_mtok = 2000

[prices."fake-anthropic/claude-test"]
input_per_mtok = 3000
output_per_mtok = 15000
"""


class Tenant:
    """An org with env prod, a token with chat grants, and helpers to create agents and invoke them."""

    def __init__(self, server, org="acme", existing=False):
        self.server = server
        self.org = org
        if not existing:  # else the org and its prod environment are already there
            server.admin("POST", "/orgs", {"id": org, "name": org})
            server.admin("POST", f"/orgs/{org}/environments", {"name": "prod"})
        _, _, tok = server.admin("POST", f"/orgs/{org}/tokens", {"name": "backend"})
        self.token_id, self.token = tok["id"], tok["token"]

    def via(self, server):
        """The same tenant calling through another server that shares the store."""
        other = Tenant.__new__(Tenant)
        other.server, other.org, other.token_id, other.token = server, self.org, self.token_id, self.token
        return other

    def agent(self, agent_id, provider="fake-openai", model="gpt-test", **config):
        body = {"name": agent_id, "instructions": config.pop("instructions", "You are a test agent."),
                "model": {"provider": provider, "name": model, **config.pop("model_settings", {})}}
        body.update(config)
        status, _, out = self.server.admin("POST", f"/orgs/{self.org}/agents", {"id": agent_id, "config": body})
        assert status == 201, out
        self.server.admin("PUT", f"/orgs/{self.org}/agents/{agent_id}/deployments/prod", {"version": 1})
        self.server.admin("PUT", f"/orgs/{self.org}/grants",
                          {"token_id": self.token_id, "agent_id": agent_id, "permissions": ["chat"]})
        return agent_id

    def invoke(self, agent_id, body, timeout=30, headers=None):
        h = {"content-type": "application/json", "fl-api-org": self.org, "fl-api-env": "prod", "fl-api-token": self.token}
        h.update(headers or {})
        return self.server.request("POST", f"/api/agents/{agent_id}/invoke", body, h, timeout=timeout)

    def settled_usage(self, servers=(), within=3.0):
        """The org's usage once every server gave back its unused spend leases (an idle lease
        goes back within 0.2 s, any lease within 1 s; docs/governance.md)."""
        deadline = time.monotonic() + within
        while True:
            usages = [s.admin("GET", f"/orgs/{self.org}/usage")[2] for s in (self.server, *servers)]
            if all(u["total_reserved_usd"] == 0 for u in usages) or time.monotonic() > deadline:
                return usages[0]
            time.sleep(0.05)

    def conversation(self, conversation_id):
        return self.server.admin("GET", f"/orgs/{self.org}/conversations/{conversation_id}")
