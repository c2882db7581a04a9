"""Black-box harness: starts build/agentgate on a free port with a fresh store (a SQLite file, or a
PostgreSQL schema when AGENTGATE_E2E_STORE=postgres) and speaks HTTP to it."""
import http.client
import json
import os
import secrets
import signal
import subprocess
import threading
import time

import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))  # tests/, for fakes/

import stores  # noqa: E402

BINARY = os.environ.get("AGENTGATE_BINARY") or os.path.join(os.path.dirname(__file__), "..", "..", "build", "agentgate")
ADMIN_TOKEN = "test-admin-token-" + secrets.token_hex(8)
MASTER_KEY = secrets.token_hex(32)


class HttpEndpoint:
    """Something speaking agentgate's API at self.host:self.port: a server, or a load balancer."""

    def request(self, method, path, body=None, headers=None, raw=None, timeout=10):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        conn.request(method, path, body=data, headers=headers or {})
        resp = conn.getresponse()
        text = resp.read().decode()
        conn.close()
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, parsed

    def admin(self, method, path, body=None, token=ADMIN_TOKEN, raw=None):
        headers = {"content-type": "application/json"}
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        return self.request(method, "/admin/v1" + path, body, headers, raw=raw)


class Agentgate(HttpEndpoint):
    """One running server process."""

    def __init__(self, tmp_path, config="", env=None, args=("--demo",)):
        self.dir = tmp_path
        self.lines = []
        config_path = tmp_path / "agentgate.toml"
        config_path.write_text(config)
        full_env = dict(os.environ)
        full_env.update({
            "AGENTGATE_SERVER_LISTEN": "127.0.0.1:0",
            "AGENTGATE_STORE_URL": stores.store_url(tmp_path),
            "AGENTGATE_ADMIN_TOKEN": ADMIN_TOKEN,
            "AGENTGATE_MASTER_KEY": MASTER_KEY,
            # The fake Salesforce org speaks plain http; the tests of the https rule turn this off.
            "AGENTGATE_CRM_ALLOW_HTTP": "true",
        })
        full_env.update(env or {})
        self.store_url = full_env["AGENTGATE_STORE_URL"]
        self.proc = subprocess.Popen([BINARY, "serve", "--config", str(config_path), *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=full_env, cwd=tmp_path,
                                     text=True)
        self._listening = threading.Event()
        self._output_ended = threading.Event()  # the process closed its output: it exited
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + 20
        while not self._listening.wait(0.02):
            if self._output_ended.is_set() or time.monotonic() > deadline:
                self.proc.kill()
                self._reader.join(5)
                raise RuntimeError("agentgate did not start:\n" + "".join(self.lines))
        host, port = self.address.rsplit(":", 1)
        self.host, self.port = host, int(port)

    def _drain(self):
        for line in self.proc.stdout:
            self.lines.append(line)
            if '"event":"listening"' in line and not self._listening.is_set():
                self.address = json.loads(line)["address"]
                self._listening.set()
        self._output_ended.set()

    def log_events(self):
        # Once the server has exited, its last lines may still sit in the pipe: read to the end
        # before answering, or a test that checks the final lines races the reader thread.
        if self.proc.poll() is not None:
            self._reader.join(10)
        out = []
        for line in list(self.lines):
            if line.startswith("{"):
                out.append(json.loads(line))
        return out

    def logged(self, predicate, timeout=2.0):
        """Whether a log event matching `predicate` appears within `timeout` (the server writes its
        log lines a few milliseconds after they happen)."""
        deadline = time.monotonic() + timeout
        while True:
            if any(predicate(e) for e in self.log_events()):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    def demo_credentials(self):
        kv = dict(line.split("=", 1) for line in (self.dir / "var" / "demo-credentials.txt").read_text().split())
        return kv

    def stop(self, sig=signal.SIGTERM, timeout=15):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


def pytest_configure(config):
    config.addinivalue_line("markers", "postgres: several servers on one database: the PostgreSQL pass alone")
    config.addinivalue_line("markers", "both_stores: behaviour of the store itself: both passes")


def pytest_collection_modifyitems(config, items):
    """Which pass runs a test (tests/README.md, "Which store"): every test runs on SQLite, except
    those marked `postgres` (several servers on one database); the PostgreSQL pass runs those and
    the ones marked `both_stores` (what the store itself decides), so a test runs on PostgreSQL only
    where the store makes a difference."""
    def marked(item, name):
        return item.get_closest_marker(name) is not None
    if stores.KIND == "postgres":
        keep = [i for i in items if marked(i, "postgres") or marked(i, "both_stores")]
    else:
        keep = [i for i in items if not marked(i, "postgres")]
    dropped = [i for i in items if i not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.fixture(scope="session", autouse=True)
def store_kind():
    if stores.KIND == "postgres" and not stores.POSTGRES_URL:
        pytest.exit("AGENTGATE_E2E_STORE=postgres needs AGENTGATE_TEST_POSTGRES_URL (make test sets it)", 77)
    yield stores.KIND
    stores.drop_schemas()


@pytest.fixture
def llm():
    """A fake LLM provider speaking the OpenAI and Anthropic wire formats (tests/fakes)."""
    from fakes.fake_llm import FakeLlm
    fake = FakeLlm()
    yield fake
    fake.close()


@pytest.fixture
def server(tmp_path):
    s = Agentgate(tmp_path)
    yield s
    code = s.stop()
    assert code == 0, "".join(s.lines[-20:])


@pytest.fixture
def start_server(tmp_path):
    started = []

    def start(config="", env=None, args=("--demo",), subdir="s"):
        d = tmp_path / f"{subdir}{len(started)}"
        d.mkdir()
        s = Agentgate(d, config, env, args)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


def error_of(body):
    """The SPEC's error body: {"error": {"status", "code", "message"}}."""
    assert isinstance(body, dict) and set(body) == {"error"}, body
    assert set(body["error"]) >= {"status", "code", "message"}, body
    return body["error"]
