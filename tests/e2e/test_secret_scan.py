"""No key text anywhere (docs/daemon.md "Stop rules", docs/decisions.md): a provider whose error
quotes the key it was sent, in full and masked as OpenAI's 401 does, leaves neither that text nor
any configured secret in an answer, a stream, a run, its events, a webhook, a transcript, a log
line, an exported span or the store, through the binary on both
stores."""
import json

import pytest

import stores
from conftest import ADMIN_TOKEN, MASTER_KEY
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_error
from test_approvals import headers
from test_runs import wait_status
from test_tracing import Receiver

MASKED = API_KEY[:8] + "*" * 40 + API_KEY[-4:]
SECRETS = [API_KEY, MASKED, API_KEY[-4:] + ".", ADMIN_TOKEN, MASTER_KEY]


pytestmark = pytest.mark.both_stores  # what the store itself decides (conftest.py)


def quoting_the_key():
    return openai_error(401, "invalid_api_key",
                        f"Incorrect API key provided: {MASKED}. The key {API_KEY} was refused. "
                        "You can find your API key at https://platform.openai.com/account/api-keys.")


def assert_no_secret(where, text):
    text = text if isinstance(text, str) else json.dumps(text)
    for secret in SECRETS:
        assert secret not in text, f"{where} holds {secret!r}: {text[:2000]}"


def test_a_providers_error_quoting_its_key_leaves_no_key_text_anywhere(start_server, llm, tmp_path):
    from test_webhooks import ALLOW_PRIVATE, registered_receiver
    collector = Receiver(tmp_path / "exports.jsonl")
    config = config_for(llm) + f'\n[tracing]\nendpoint = "{collector.endpoint}"\ncapture_content = true\n'
    server = start_server(config, env={"FAKE_LLM_KEY": API_KEY, **ALLOW_PRIVATE})
    tenant = Tenant(server)
    tenant.agent("bot")
    hook, receiver = registered_receiver(tenant)
    try:
        llm.push(quoting_the_key(), quoting_the_key(), quoting_the_key())
        status, head, plain = tenant.invoke("bot", {"message": "hello"})
        assert status == 200 and plain["terminated_reason"] == "provider_error", plain
        assert_no_secret("the 200 body", plain)

        status, _, streamed = tenant.invoke("bot", {"message": "hello", "stream": True})
        assert status == 200 and "event: run.completed" in streamed, streamed
        assert_no_secret("the stream", streamed)

        status, _, queued = tenant.invoke("bot", {"message": "hello", "background": True})
        assert status == 202, queued
        run = wait_status(tenant, queued["run_id"], {"completed", "failed"})
        assert run["status"] == "completed" and run["result"]["terminated_reason"] == "provider_error", run
        assert_no_secret("the run", run)
        _, _, events = server.request("GET", f"/api/runs/{queued['run_id']}/events",
                                      headers=headers(tenant, tenant.token))
        assert_no_secret("the run's events", events)
        delivered = receiver.wait(1)[0]
        assert delivered["verified"], delivered
        assert_no_secret("the webhook", delivered["body"])

        status, _, turn = server.admin("GET", f"/orgs/{tenant.org}/turns/{head['x-agentgate-turn-id']}")
        assert status == 200, turn
        failure = turn["transcript"]["failure"]
        assert "Incorrect API key provided: [redacted]." in failure, failure  # what failed is still said
        assert_no_secret("the transcript", turn)
        _, _, deliveries = server.admin("GET", f"/orgs/{tenant.org}/environments/prod/webhooks/{hook['id']}/deliveries")
        assert_no_secret("the delivery list", deliveries)

        collector.wait_for(lambda s: sum(1 for x in s if x["name"] == "invoke_agent bot") == 3)
        assert_no_secret("the exported spans", json.dumps(collector.exports()))
    finally:
        receiver.close()
        collector.close()
    assert server.stop() == 0
    assert_no_secret("the log", "".join(server.lines))
    stored = stores.stored_bytes(server.store_url)
    for secret in SECRETS:
        assert secret.encode() not in stored, f"the store holds {secret!r}"
