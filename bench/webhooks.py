"""Webhook deliveries shared fairly (issue 57 §2): one hanging endpoint among ENDPOINTS delays no
other endpoint's deliveries. One server (SQLite store), ORGS organizations with ENDPOINTS/ORGS
webhooks each (one of the first organization's accepts connections and never answers), and
background runs whose ends make DELIVERIES deliveries in all; an OpenAI-style provider in this
script answers at once and notes when it answered each run's model call.

    python3 bench/webhooks.py [build-dir] [DELIVERIES] [ENDPOINTS] [ORGS]
                                                    (default: build-release 1000 50 5)

The figure is the lateness of each healthy delivery: from its run's model call being answered (the
run ends a moment later, its delivery then due) to the delivery reaching its endpoint; p50, p99
and the worst. Goal: p99 <= 1 s.
"""
import asyncio
import http.client
import json
import os
import signal
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_server import BenchServer  # noqa: E402
from in_flight import COMPLETION, raise_descriptor_limit, read_message  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build-release"
DELIVERIES = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
ENDPOINTS = int(sys.argv[3]) if len(sys.argv) > 3 else 50
ORGS = int(sys.argv[4]) if len(sys.argv) > 4 else 5
PER_ORG = ENDPOINTS // ORGS
RUNS_PER_ORG = DELIVERIES // ENDPOINTS  # each run's end goes to every webhook of its environment


class Provider:
    """Answers every model call at once; notes when it answered each message."""

    def __init__(self):
        self.answered = {}

    async def serve(self, reader, writer):
        try:
            while True:
                _, body = await read_message(reader)
                message = json.loads(body)["messages"][-1]["content"]
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: " + str(len(COMPLETION)).encode() + b"\r\n\r\n"
                             + COMPLETION)
                await writer.drain()
                self.answered[message] = time.monotonic()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


class Endpoints:
    """Every healthy webhook's endpoint (a path each) on one port; the hanging one on another."""

    def __init__(self):
        self.arrivals = []  # (path, run_id, monotonic time)
        self.hung = []

    async def healthy(self, reader, writer):
        try:
            while True:
                line, body = await read_message(reader)
                path = line.split(b" ")[1].decode()
                self.arrivals.append((path, json.loads(body)["data"]["run_id"], time.monotonic()))
                writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def hanging(self, reader, writer):
        self.hung.append(writer)  # accepted, never answered


def post(conn, path, body, headers):
    conn.request("POST", path, body=json.dumps(body), headers=headers)
    response = conn.getresponse()
    answer = json.loads(response.read() or b"null")
    assert response.status in (200, 201, 202), (path, response.status, answer)
    return answer


async def main():
    raise_descriptor_limit(4096)
    provider = Provider()
    endpoints = Endpoints()
    upstream = await asyncio.start_server(provider.serve, "127.0.0.1", 0, backlog=1024)
    healthy = await asyncio.start_server(endpoints.healthy, "127.0.0.1", 0, backlog=1024)
    hanging = await asyncio.start_server(endpoints.hanging, "127.0.0.1", 0, backlog=1024)
    healthy_port = healthy.sockets[0].getsockname()[1]
    hanging_port = hanging.sockets[0].getsockname()[1]
    server = BenchServer(BUILD, upstream.sockets[0].getsockname()[1], f"""
[runs]
max_queued_per_org = {DELIVERIES + 100}
[webhooks]
allow_private = true
""")
    try:
        server.provision()
        conn = http.client.HTTPConnection("127.0.0.1", server.port)
        tokens = []
        for o in range(ORGS):
            org = f"org{o}"
            if o > 0:
                server.admin("POST", "/orgs", {"id": org, "name": org,
                                               "monthly_spend_limit_usd": 1000000})
                server.admin("POST", f"/orgs/{org}/environments", {"name": "prod"})
                server.admin("POST", f"/orgs/{org}/agents", {"id": "bench", "config": {
                    "name": "Bench", "instructions": "Answer briefly.",
                    "model": {"provider": "bench", "name": "gpt-bench", "max_output_tokens": 256}}})
                server.admin("PUT", f"/orgs/{org}/agents/bench/deployments/prod", {"version": 1})
            else:
                org = "acme"
            token = server.admin("POST", f"/orgs/{org}/tokens", {"name": "bench"})
            server.admin("PUT", f"/orgs/{org}/grants",
                         {"token_id": token["id"], "agent_id": "bench", "permissions": ["chat"]})
            tokens.append((org, token["token"]))
            for w in range(PER_ORG):
                url = (f"http://127.0.0.1:{hanging_port}/hang" if o == 0 and w == 0
                       else f"http://127.0.0.1:{healthy_port}/{org}/{w}")
                server.admin("POST", f"/orgs/{org}/environments/prod/webhooks", {"url": url})

        run_message = {}
        started = time.monotonic()
        for i in range(RUNS_PER_ORG):
            for org, token in tokens:
                message = f"{org} run {i}"
                body = post(conn, "/api/agents/bench/invoke", {"message": message, "background": True},
                            {"content-type": "application/json", "fl-api-org": org,
                             "fl-api-env": "prod", "fl-api-token": token})
                run_message[body["run_id"]] = message
        healthy_expected = RUNS_PER_ORG * (ENDPOINTS - 1)
        deadline = time.monotonic() + 120
        while len(endpoints.arrivals) < healthy_expected and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        took = time.monotonic() - started
        late = sorted((at - provider.answered[run_message[run_id]]) * 1000
                      for _, run_id, at in endpoints.arrivals)
        p99 = late[min(len(late) - 1, int(len(late) * 0.99))]
        print(f"command: python3 bench/webhooks.py {BUILD} {DELIVERIES} {ENDPOINTS} {ORGS}  "
              f"({os.cpu_count()} cores, SQLite)")
        print(f"{len(late)} of {healthy_expected} healthy deliveries arrived in {took:.1f} s "
              f"({len(endpoints.hung)} connections held by the hanging endpoint); lateness from "
              f"the run's model answer: p50 {statistics.median(late):.0f} ms, p99 {p99:.0f} ms, "
              f"worst {late[-1]:.0f} ms (goal: p99 <= 1000 ms)")
    finally:
        server.stop(signal.SIGKILL)
        for server_ in (upstream, healthy, hanging):
            server_.close()
        for writer in endpoints.hung:
            writer.close()
        await asyncio.sleep(0.2)  # each connection's task sees its end and returns


if __name__ == "__main__":
    asyncio.run(main())
