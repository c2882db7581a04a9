"""Where an open stream's memory goes (issue 75 §4): N streamed `/api` turns held mid-reply (the
provider sends a few tokens, then waits), and the server's RSS and glibc heap read at one stream
and at N: the heap in use (`malloc_info` through gdb: what the arenas hold minus their free
chunks) against RSS, per stream. A gap between them would be the allocator's slack; none means
the memory is live objects.

    python3 bench/stream_memory.py [build-dir] [N]     (default: build-release 1000; installs gdb when missing)
"""
import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_server import BenchServer, rss_kib, sse_chunk, stream_limits  # noqa: E402
from in_flight import raise_descriptor_limit, read_message  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build-release"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
HOLD_S = 60.0  # the provider's wait after its first tokens: the streams stay open meanwhile


async def provider(reader, writer):
    """OpenAI's chat.completions stream: five words, then a long wait before its end."""
    try:
        while True:
            await read_message(reader)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n")
            for i in range(5):
                writer.write(sse_chunk({"id": "c", "object": "chat.completion.chunk", "model": "gpt-bench",
                                    "choices": [{"index": 0, "delta": {"content": f"word{i} "}}]}))
                await writer.drain()
                await asyncio.sleep(0.02)
            await asyncio.sleep(HOLD_S)
            writer.write(b"e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def stream(port, token, streaming):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    payload = json.dumps({"message": "hi"}).encode()
    writer.write(f"POST /api/agents/bench/invoke HTTP/1.1\r\nHost: bench\r\n"
                 f"Content-Type: application/json\r\nAccept: text/event-stream\r\n"
                 f"Content-Length: {len(payload)}\r\nfl-api-org: acme\r\nfl-api-env: prod\r\n"
                 f"fl-api-token: {token}\r\nConnection: close\r\n\r\n".encode() + payload)
    counted = False
    try:
        while data := await reader.read(65536):
            if not counted and b"text.delta" in data:
                counted = True
                streaming.append(1)
    finally:
        writer.close()


def heap(pid, work):
    """The arenas' size and their free chunks (bytes), from malloc_info written by the process."""
    out = os.path.join(work, "malloc_info.xml")
    script = os.path.join(work, "gdb.cmd")
    with open(script, "w") as f:
        f.write(f'set pagination off\ncall (void*)fopen("{out}", "w")\nset $f = $\n'
                "call (int)malloc_info(0, $f)\ncall (int)fclose($f)\n")
    subprocess.run(["gdb", "-p", str(pid), "-batch", "-x", script], capture_output=True, check=True)
    with open(out) as f:
        xml = f.read()
    tail = xml[xml.rfind("</heap>"):]
    system = int(re.search(r'<system type="current" size="(\d+)"/>', tail).group(1))
    free = sum(int(s) for s in re.findall(r'<total type="(?:fast|rest)" count="\d+" size="(\d+)"/>', tail))
    return system, free


async def held(server, token, n, work):
    """RSS (KiB) and heap (system, free bytes) with n streams open mid-reply."""
    streaming = []
    tasks = [asyncio.create_task(stream(server.port, token, streaming)) for _ in range(n)]
    while len(streaming) < n:
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)
    rss = rss_kib(server.pid)
    system, free = heap(server.pid, work)
    for t in tasks:
        t.cancel()
    return rss, system, free


async def main():
    raise_descriptor_limit(65536)
    if not shutil.which("gdb"):  # reads the heap of the server it measures
        subprocess.run(["apt-get", "install", "-y", "-qq", "gdb"], check=True, capture_output=True)
    upstream = await asyncio.start_server(provider, "127.0.0.1", 0, backlog=8192)
    config = stream_limits(N)
    work = tempfile.mkdtemp()
    print(f"command: python3 bench/stream_memory.py {BUILD} {N}  (1 and {N} `/api` streams held "
          f"mid-reply, one server each; {os.cpu_count()} cores)")
    figures = {}
    for n in (1, N):
        server = BenchServer(BUILD, upstream.sockets[0].getsockname()[1], config)
        try:
            token = server.provision(safety={"detect": ["credit_card", "secret"]})
            figures[n] = await held(server, token, n, work)
        finally:
            server.stop(signal.SIGKILL)  # its runs would wait out the provider's hold
        rss, system, free = figures[n]
        print(f"N={n:5d}: RSS {rss} KiB, heap {system // 1024} KiB of which free {free // 1024} KiB",
              flush=True)
    (rss1, sys1, free1), (rssn, sysn, freen) = figures[1], figures[N]
    per = N - 1
    print(f"per stream: RSS {(rssn - rss1) / per:.1f} KiB, heap in use "
          f"{((sysn - freen) - (sys1 - free1)) / 1024 / per:.1f} KiB, allocator's free chunks "
          f"{(freen - free1) / 1024 / per:.2f} KiB")
    upstream.close()


if __name__ == "__main__":
    asyncio.run(main())
