"""The real binary for the Python benches: built if missing, started on a free port with a SQLite
store in a scratch directory, and provisioned with org acme, environment prod, a token and agent
"bench" on provider "bench" (gpt-bench, priced)."""
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sse_chunk(payload):
    """One Server-Sent Event carrying `payload` as JSON, as an HTTP/1.1 chunk (a provider's stream)."""
    data = b"data: " + json.dumps(payload).encode() + b"\n\n"
    return b"%x\r\n%s\r\n" % (len(data), data)


def stream_limits(n):
    """A server's config for n streams at once: room upstream, per token and in its runs."""
    return f"""
[upstream]
max_connections_per_origin = {n + 1000}

[runs]
max_streams_per_token = {n + 1000}
max_concurrent = {n + 1000}
"""


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def admin(port, admin_token, method, path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/admin/v1{path}", method=method,
                                 data=json.dumps(body).encode(),
                                 headers={"authorization": f"Bearer {admin_token}"})
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read() or b"null")


class BenchServer:
    """`config` is TOML before the provider; the provider is OpenAI-style at `upstream_port`.
    BENCH_WRAPPER="heaptrack -o /tmp/ht" runs the server under a wrapper (its RSS is then the
    wrapper's)."""

    def __init__(self, build, upstream_port, config=""):
        binary = os.path.join(ROOT, build, "agentgate")
        if not os.path.exists(binary):
            subprocess.run(["cmake", "--preset", "release"], cwd=ROOT, check=True, capture_output=True)
            subprocess.run(["cmake", "--build", "--preset", "release"], cwd=ROOT, check=True,
                           capture_output=True)
        self.work = tempfile.mkdtemp()
        with open(os.path.join(self.work, "agentgate.toml"), "w") as f:
            f.write(config + f"""
[[providers]]
name = "bench"
kind = "openai"
base_url = "http://127.0.0.1:{upstream_port}/v1"
api_key_env = "BENCH_LLM_KEY"

[prices."bench/gpt-bench"]
input_per_mtok = 0.15
output_per_mtok = 0.60
""")
        self.port = free_port()
        self.admin_token = "bench-admin-" + secrets.token_hex(8)
        master = subprocess.run([binary, "gen-master-key"], capture_output=True, text=True,
                                check=True).stdout.strip()
        env = dict(os.environ, BENCH_LLM_KEY="sk-bench", AGENTGATE_ADMIN_TOKEN=self.admin_token,
                   AGENTGATE_MASTER_KEY=master, AGENTGATE_SERVER_LISTEN=f"127.0.0.1:{self.port}",
                   AGENTGATE_STORE_URL=f"sqlite:{self.work}/db/agentgate.db")
        log = open(os.path.join(self.work, "server.log"), "w")
        wrapper = os.environ.get("BENCH_WRAPPER", "").split()
        self.process = subprocess.Popen(
            [*wrapper, binary, "serve", "--config", os.path.join(self.work, "agentgate.toml")],
            env=env, stdout=log, stderr=subprocess.STDOUT, cwd=self.work, start_new_session=True)
        for _ in range(500):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz")
                break
            except OSError:
                time.sleep(0.02)

    @property
    def pid(self):
        return self.process.pid

    def admin(self, method, path, body):
        return admin(self.port, self.admin_token, method, path, body)

    def provision(self, safety=None):
        """Org acme (a high limit), environment prod, agent bench (with `safety`, when given)
        granted to a new token: the token (its prod API key is `api_key`)."""
        self.admin("POST", "/orgs", {"id": "acme", "name": "Acme", "monthly_spend_limit_usd": 1000000})
        self.admin("POST", "/orgs/acme/environments", {"name": "prod"})
        token = self.admin("POST", "/orgs/acme/tokens", {"name": "bench"})
        self.token_id = token["id"]
        self.api_key = token["api_keys"]["prod"]
        config = {"name": "Bench", "instructions": "Answer briefly.",
                  "model": {"provider": "bench", "name": "gpt-bench", "max_output_tokens": 256}}
        if safety:
            config["safety"] = safety
        self.admin("POST", "/orgs/acme/agents", {"id": "bench", "config": config})
        self.admin("PUT", "/orgs/acme/agents/bench/deployments/prod", {"version": 1})
        self.admin("PUT", "/orgs/acme/grants",
                   {"token_id": token["id"], "agent_id": "bench", "permissions": ["chat"]})
        return token["token"]

    def stop(self, sig=signal.SIGTERM):
        os.killpg(self.process.pid, sig)  # the server, and a wrapper's child with it
        self.process.wait(timeout=30)
        shutil.rmtree(self.work, ignore_errors=True)
