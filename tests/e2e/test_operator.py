"""Operator endpoints (SPEC §8) and the first-run demo through the binary."""
import json
import subprocess
import re
import threading
import time

from conftest import ADMIN_TOKEN
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text


def test_health_and_readiness(server):
    assert server.request("GET", "/healthz")[:3:2] == (200, {"status": "ok"})
    assert server.request("GET", "/readyz")[:3:2] == (200, {"status": "ready"})


def test_metrics_are_prometheus_text_with_real_counts(server):
    for _ in range(3):
        server.request("GET", "/healthz")
    server.request("GET", "/nope")
    status, headers, text = server.request("GET", "/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain")
    assert '# TYPE agentgate_http_requests_total counter' in text
    assert 'agentgate_http_requests_total{route="/healthz",status="200"} 3' in text
    assert 'agentgate_http_requests_total{route="unmatched",status="404"} 1' in text
    assert 'agentgate_http_request_duration_seconds_count{route="/healthz"} 3' in text
    for family in ("agentgate_turns_in_flight", "agentgate_turn_stop_total".replace("stop", "stops"),
                   "agentgate_model_tokens_total", "agentgate_gateway_upstream_duration_seconds"):
        assert f"# TYPE {family}" in text


def test_the_turns_gauge_counts_a_turn_while_its_model_answers(start_server, llm):
    """The gauge is the count the hand-off spinning judges contention by (RunningTurn): a turn
    holds it from admission to its answer."""
    tenant = Tenant(start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY}))
    tenant.agent("held")

    def in_flight():
        text = tenant.server.request("GET", "/metrics")[2]
        return float(re.search(r"^agentgate_turns_in_flight (\S+)$", text, re.M).group(1))

    assert in_flight() == 0
    llm.push({**openai_text("in time"), "delay": 1.5})
    answers = []
    turn = threading.Thread(target=lambda: answers.append(tenant.invoke("held", {"message": "wait"})))
    turn.start()
    seen = 0
    deadline = time.monotonic() + 1.2
    while seen == 0 and time.monotonic() < deadline:
        seen = in_flight()
        time.sleep(0.05)
    turn.join()
    assert seen == 1
    assert answers[0][0] == 200 and answers[0][2]["response"] == "in time"
    assert in_flight() == 0


def test_openapi_document_is_served(server):
    status, _, doc = server.request("GET", "/openapi.json")
    assert status == 200 and doc["openapi"].startswith("3.")
    assert "/api/agents/{agent_id}/invoke" in doc["paths"]
    assert "post" in doc["paths"]["/admin/v1/orgs"]
    assert "post" in doc["paths"]["/mcp"]


def test_demo_is_provisioned_once(start_server):
    s = start_server()
    creds = s.demo_credentials()
    assert creds["org"] == "demo" and creds["agent"] == "demo-agent" and creds["token"].startswith("agt_")
    out = "".join(s.lines)
    assert "curl -s http://" in out and creds["token"] in out
    status, _, body = s.request("POST", "/api/agents/demo-agent/invoke", {"message": "What is agentgate?"},
                                {"fl-api-org": "demo", "fl-api-env": "dev", "fl-api-token": creds["token"]})
    assert status == 200 and body["terminated_reason"] is None and body["blocked"] is False, body
    assert "authenticated API" in body["response"]  # answered from the demo's trusted resources
    status, _, body = s.request("POST", "/api/agents/demo-agent/invoke", {"message": "zebra?"},
                                {"fl-api-org": "demo", "fl-api-env": "dev", "fl-api-token": creds["token"]})
    assert status == 200 and "could not find" in body["response"]
    store = s.store_url
    s.stop()
    again = start_server(env={"AGENTGATE_STORE_URL": store})
    assert again.admin("POST", "/orgs", {"id": "demo", "name": "x"})[0] == 409


def test_the_agent_platform_host_can_have_its_own_listener(start_server):
    s = start_server("[server]\nagent_platform_listen = \"127.0.0.1:0\"\n")
    import time
    for _ in range(50):
        addresses = [e["address"] for e in s.log_events() if e["event"] == "listening"]
        if len(addresses) == 2:
            break
        time.sleep(0.05)
    assert len(addresses) == 2 and addresses[0] != addresses[1]
    import http.client
    for address in addresses:
        host, port = address.rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request("GET", "/healthz")
        assert conn.getresponse().status == 200
        conn.close()


def test_help_lists_the_subcommands():
    import subprocess
    from conftest import BINARY
    out = subprocess.run([BINARY, "--help"], capture_output=True, text=True, timeout=10)
    assert out.returncode == 0
    for command in ("serve", "migrate", "gen-master-key"):
        assert command in out.stdout
    key = subprocess.run([BINARY, "gen-master-key"], capture_output=True, text=True, timeout=10).stdout.strip()
    assert len(key) == 64 and int(key, 16) >= 0
    bad = subprocess.run([BINARY, "frobnicate"], capture_output=True, text=True, timeout=10)
    assert bad.returncode == 2 and "unknown command" in bad.stderr


def test_the_start_up_text_gives_a_working_openai_base_url_key_and_curl_line(start_server):
    """`make run` prints what an OpenAI SDK needs; the printed curl line, run as printed, chats
    with the demo agent through /v1/chat/completions."""
    s = start_server()
    deadline = time.monotonic() + 10
    while not any(line.startswith("  curl -s http://") and "/v1/chat/completions" in line for line in s.lines):
        assert time.monotonic() < deadline, "".join(s.lines)
        time.sleep(0.05)
    text = "".join(s.lines)
    creds = s.demo_credentials()
    key = f"agk_{creds['org']}.{creds['env']}.{creds['token']}"
    assert f"base URL: http://{s.host}:{s.port}/v1" in text
    assert f"API key:  {key}" in text
    curl = next(line.strip() for line in s.lines if "/v1/chat/completions" in line and line.strip().startswith("curl"))
    answered = subprocess.run(["bash", "-c", curl], capture_output=True, text=True, timeout=30)
    assert answered.returncode == 0, answered.stderr
    body = json.loads(answered.stdout)
    assert body["object"] == "chat.completion" and body["model"] == creds["agent"]
    assert "authenticated API" in body["choices"][0]["message"]["content"]
