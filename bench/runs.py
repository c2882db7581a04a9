"""Runs (issue 36 §7): a background run's queue-to-start on an idle server, and what queued runs
cost the server's memory. One server (SQLite store, [runs] max_concurrent = 1) and an OpenAI-style
provider in this script that notes when each model call arrives.

    python3 bench/runs.py [build-dir] [SAMPLES] [QUEUED]     (default: build-release 200 10000)

queue-to-start: SAMPLES background runs one after another on an idle server; for each, the time
from the client holding its 202 (the run is queued and stored) to its model call reaching the
provider (an upper bound: the turn's own preparation is in it). Goal: p50 <= 5 ms.
queued memory: the provider holds the one running run's model call, QUEUED more runs are queued
behind it, and the server's resident memory is read before and after. Goal: <= 5 KB per run.
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
from bench_server import BenchServer, rss_kib  # noqa: E402
from in_flight import COMPLETION, read_message  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build-release"
SAMPLES = int(sys.argv[2]) if len(sys.argv) > 2 else 200
QUEUED = int(sys.argv[3]) if len(sys.argv) > 3 else 10000


class Provider:
    """Answers each model call at once, or holds them while `held` is set; notes arrivals."""

    def __init__(self):
        self.arrivals = []
        self.held = False
        self.release = asyncio.Event()
        self.writers = set()

    async def serve(self, reader, writer):
        self.writers.add(writer)
        try:
            while True:
                await read_message(reader)
                self.arrivals.append(time.monotonic())
                if self.held:
                    await self.release.wait()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(COMPLETION)).encode() + b"\r\n\r\n" + COMPLETION)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.writers.discard(writer)
            writer.close()


def queue_run(conn, token):
    conn.request("POST", "/api/agents/bench/invoke", body=b'{"message":"hi","background":true}',
                 headers={"content-type": "application/json", "fl-api-org": "acme",
                          "fl-api-env": "prod", "fl-api-token": token})
    response = conn.getresponse()
    body = response.read()
    assert response.status == 202, body
    return json.loads(body)["run_id"]


async def wait_arrivals(provider, count, within=10.0):
    deadline = time.monotonic() + within
    while len(provider.arrivals) < count:
        assert time.monotonic() < deadline, "the run's model call never came"
        await asyncio.sleep(0.0002)


async def main():
    provider = Provider()
    upstream = await asyncio.start_server(provider.serve, "127.0.0.1", 0, backlog=1024)
    upstream_port = upstream.sockets[0].getsockname()[1]
    server = BenchServer(BUILD, upstream_port, f"""
[runs]
max_concurrent = 1
max_queued_per_org = {QUEUED + 100}
""")
    port = server.port
    try:
        token = server.provision()
        conn = http.client.HTTPConnection("127.0.0.1", port)

        # Queue-to-start, one run at a time on an idle server (after a few to warm up).
        waits = []
        for i in range(SAMPLES + 10):
            seen = len(provider.arrivals)
            queue_run(conn, token)
            queued_at = time.monotonic()
            await wait_arrivals(provider, seen + 1)
            if i >= 10:
                waits.append((provider.arrivals[seen] - queued_at) * 1000)
            await asyncio.sleep(0.01)  # the run ends; the server is idle again
        waits.sort()
        p50 = statistics.median(waits)
        p90 = waits[int(len(waits) * 0.9)]

        # Queued runs' memory: one run holds the only slot, the rest wait in the store.
        provider.held = True
        seen = len(provider.arrivals)
        queue_run(conn, token)
        await wait_arrivals(provider, seen + 1)
        await asyncio.sleep(0.5)
        before = rss_kib(server.pid)
        started = time.monotonic()
        for _ in range(QUEUED):
            queue_run(conn, token)
        queued_in = time.monotonic() - started
        await asyncio.sleep(1.0)
        after = rss_kib(server.pid)
        assert len(provider.arrivals) == seen + 1, "a queued run started: the slot was not held"
        per_run = (after - before) * 1024 / QUEUED
        print(f"command: python3 bench/runs.py {BUILD} {SAMPLES} {QUEUED}  ({os.cpu_count()} cores)")
        print(f"queue-to-start (202 in hand to the model call at the provider), idle server, "
              f"{SAMPLES} runs: p50 {p50:.2f} ms, p90 {p90:.2f} ms (goal: p50 <= 5 ms)")
        print(f"queued runs: {QUEUED} queued in {queued_in:.1f} s behind one running; server RSS "
              f"{before / 1024:.1f} MiB before, {after / 1024:.1f} MiB after: "
              f"{per_run:.0f} bytes per queued run (goal: <= 5 KB)")
    finally:
        server.stop(signal.SIGKILL)  # 10,000 queued runs need not drain
        upstream.close()
        provider.release.set()
        for writer in list(provider.writers):
            writer.close()
        await asyncio.sleep(0.2)  # each connection's task sees its end and returns


if __name__ == "__main__":
    asyncio.run(main())
