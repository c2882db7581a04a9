"""Memory per turn in flight (issue 12, goal 4): N stateless turns held open at once by a provider
that answers each model call after DELAY seconds. Prints the server's resident memory before and at
the peak, the growth per in-flight turn, and how many turns answered 200.

    python3 bench/in_flight.py [build-dir] [N] [DELAY]     (default: build-release 10000 5)

The provider is a small asyncio server in this script speaking OpenAI's chat.completions; the
client is asyncio too, one connection per turn. Both raise their own descriptor limits (as root
the hard limit too), and so does the server's environment: 10,000 turns hold 20,000 sockets in it.
`[upstream] max_connections_per_origin` is raised above N so every model call is in flight at once.
"""
import asyncio
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_server import BenchServer, rss_kib  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build-release"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
DELAY = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
COMPLETION = json.dumps({
    "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-bench",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "All good."}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 20, "completion_tokens": 4}}).encode()


def raise_descriptor_limit(want):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
            return
        except (ValueError, PermissionError):
            want = hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


async def read_message(reader):
    """An HTTP/1.1 message with a Content-Length body: (first line, body)."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    body = await reader.readexactly(length) if length else b""
    return head.split(b"\r\n", 1)[0], body


class SlowProvider:
    def __init__(self):
        self.in_flight = 0
        self.peak = 0
        self.writers = set()

    async def serve(self, reader, writer):
        self.writers.add(writer)
        try:
            while True:
                await read_message(reader)
                self.in_flight += 1
                self.peak = max(self.peak, self.in_flight)
                await asyncio.sleep(DELAY)
                self.in_flight -= 1
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(COMPLETION)).encode() + b"\r\n\r\n" + COMPLETION)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.writers.discard(writer)
            writer.close()


async def turn(port, token):
    body = b'{"message":"hi"}'
    request = (f"POST /api/agents/bench/invoke HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               f"fl-api-org: acme\r\nfl-api-env: prod\r\nfl-api-token: {token}\r\n"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    for attempt in range(5):  # a connect refused while the listen backlog is full is retried
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            break
        except OSError:
            await asyncio.sleep(0.2 * (attempt + 1))
    else:
        return "connect failed"
    try:
        writer.write(request)
        status, _ = await asyncio.wait_for(read_message(reader), timeout=DELAY + 60)
        return status.split(b" ")[1].decode()
    except (asyncio.TimeoutError, asyncio.IncompleteReadError, ConnectionError) as e:
        return type(e).__name__
    finally:
        writer.close()


async def main():
    raise_descriptor_limit(4 * N + 1024)
    provider = SlowProvider()
    upstream = await asyncio.start_server(provider.serve, "127.0.0.1", 0, backlog=4096)
    upstream_port = upstream.sockets[0].getsockname()[1]
    server = BenchServer(BUILD, upstream_port, f"""
[upstream]
max_connections_per_origin = {N + 1000}
""")
    port = server.port
    try:
        token = server.provision()

        # Warm up: a few rounds of concurrent turns, so pools, caches and arenas exist before the base.
        for _ in range(3):
            warm = await asyncio.gather(*(turn(port, token) for _ in range(200)))
            assert all(s == "200" for s in warm), warm[:5]
        base = rss_kib(server.pid)

        started = time.monotonic()
        tasks = []
        for i in range(N):  # opened in steps, so the listen backlog never overflows
            tasks.append(asyncio.ensure_future(turn(port, token)))
            if i % 500 == 499:
                await asyncio.sleep(0.05)
        peak = base
        held = 0
        while not all(t.done() for t in tasks):
            peak = max(peak, rss_kib(server.pid))
            held = max(held, provider.in_flight)
            await asyncio.sleep(0.05)
        statuses = [t.result() for t in tasks]
        elapsed = time.monotonic() - started
        ok = statuses.count("200")
        errors = {s: statuses.count(s) for s in set(statuses) if s != "200"}
        per_turn = (peak - base) / max(held, 1)
        print(f"command: python3 bench/in_flight.py {BUILD} {N} {DELAY:g}  ({os.cpu_count()} cores)")
        print(f"turns: {N}, answered 200: {ok}, other: {errors or 0}, in flight at once (provider): {held}, "
              f"all done in {elapsed:.1f} s")
        print(f"server RSS: {base / 1024:.1f} MiB before, {peak / 1024:.1f} MiB at the peak: "
              f"{per_turn:.1f} KiB per in-flight turn")
    finally:
        server.stop()
        upstream.close()
        for writer in list(provider.writers):
            writer.close()
        await asyncio.sleep(0.2)  # each connection's task sees its end and returns


if __name__ == "__main__":
    asyncio.run(main())
