"""Streams at the model's speed (issue 75): N concurrent streamed turns from a provider that streams
at a realistic pace (its first token after 300 ms, then one every 20 ms, 50 tokens of prose),
through agentgate's `/api` SSE and its `/v1/chat/completions` stream, against the provider direct
and nginx `proxy_pass` with `proxy_buffering off` in the same run.

    python3 bench/streams.py [build-dir] [N...]     (default: build-release 100 1000)

Per path and N it prints the first text's arrival (TTFT) p50/p99 and what it adds over the
provider direct, the gap between text events at p99, the relay's CPU per 1,000 tokens (agentgate's
process, or nginx's worker) and its RSS per open stream (at the peak, over its idle RSS). The agent
checks its replies for card numbers and secrets (`detect`), as a careful operator's does
(`SAFETY=none`: no checks). The
provider and the clients are asyncio in this process: on a 2-core host they share the CPU with the
relay, alike for every path. `PROFILE=dir` records a perf profile of each relay's process at each
N (dir/NAME-N.perf).
"""
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_server import BenchServer, free_port, rss_kib, sse_chunk, stream_limits  # noqa: E402
from in_flight import raise_descriptor_limit, read_message  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build-release"
SIZES = [int(n) for n in sys.argv[2:]] or [100, 1000]
FIRST_TOKEN_S, TOKEN_GAP_S, TOKENS = 0.3, 0.02, 50
WORDS = "the renewal is due in march and the owner is the regional team who asked".split()


async def provider(reader, writer):
    """OpenAI's chat.completions stream, paced: a word a chunk, then usage and [DONE]."""
    try:
        while True:
            await read_message(reader)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n")
            await asyncio.sleep(FIRST_TOKEN_S)
            for i in range(TOKENS):
                if i:
                    await asyncio.sleep(TOKEN_GAP_S)
                word = WORDS[i % len(WORDS)] + ("." if i == TOKENS - 1 else " ")
                writer.write(sse_chunk({"id": "c", "object": "chat.completion.chunk", "model": "gpt-bench",
                                    "choices": [{"index": 0, "delta": {"content": word}}]}))
            writer.write(sse_chunk({"id": "c", "object": "chat.completion.chunk", "model": "gpt-bench",
                                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                                "usage": {"prompt_tokens": 20, "completion_tokens": TOKENS}}))
            writer.write(b"e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
        pass  # the client went, or the bench ends
    finally:
        writer.close()


async def body_pieces(reader, chunked):
    """The response body as it arrives, de-chunked."""
    if not chunked:
        while piece := await reader.read(65536):
            yield piece
        return
    while True:
        size = int((await reader.readline()).strip() or b"0", 16)
        if size == 0:
            return
        yield await reader.readexactly(size)
        await reader.readexactly(2)


def texts_in(event_block, kind):
    """The text an SSE event carries: agentgate's text.delta, or a chat chunk's content."""
    name, data = "", ""
    for line in event_block.split("\n"):
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data += line[5:].strip()
    if not data or data == "[DONE]":
        return ""
    if kind == "api":
        return json.loads(data).get("text", "") if name == "text.delta" else ""
    choices = json.loads(data).get("choices") or [{}]
    return choices[0].get("delta", {}).get("content") or ""


async def one_stream(port, path, headers, body, kind, out):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    payload = json.dumps(body).encode()
    started = time.monotonic()
    writer.write(f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                 f"Accept: text/event-stream\r\nContent-Length: {len(payload)}\r\n{headers}"
                 f"Connection: close\r\n\r\n".encode() + payload)
    head = (await reader.readuntil(b"\r\n\r\n")).decode().lower()
    arrivals, buffer = [], ""
    async for piece in body_pieces(reader, "transfer-encoding: chunked" in head):
        buffer += piece.decode()
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            if texts_in(block, kind):
                arrivals.append(time.monotonic() - started)
    writer.close()
    out.append(arrivals)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def load(n, port, path, headers, body, kind, pid, profile=None):
    """N streams at once: their arrivals, the relay's CPU seconds and its peak RSS growth (KiB).
    With `profile` (a file), perf records the relay's process meanwhile."""
    recorder = None
    if profile and pid:
        recorder = subprocess.Popen(["perf", "record", "-F", os.environ.get("PROFILE_HZ", "999"), "-g", "-p", str(pid), "-o", profile],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    idle = rss_kib(pid) if pid else 0
    cpu = cpu_seconds(pid) if pid else 0.0
    out, peak = [], idle
    tasks = [asyncio.create_task(one_stream(port, path, headers, body, kind, out)) for _ in range(n)]
    while not all(t.done() for t in tasks):
        if pid:
            peak = max(peak, rss_kib(pid))
        await asyncio.sleep(0.05)
    for t in tasks:
        t.result()
    if recorder:
        recorder.send_signal(2)
        recorder.wait()
    return out, (cpu_seconds(pid) - cpu if pid else 0.0), peak - idle


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def nginx(work, provider_port):
    port = free_port()
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""pid {work}/nginx.pid; error_log {work}/nginx.err; worker_processes 1;
events {{ worker_connections 20000; }}
worker_rlimit_nofile 40000;
http {{ access_log off; client_body_temp_path {work}; proxy_temp_path {work};
  fastcgi_temp_path {work}; uwsgi_temp_path {work}; scgi_temp_path {work};
  upstream llm {{ server 127.0.0.1:{provider_port}; keepalive 1024; }}
  server {{ listen 127.0.0.1:{port} backlog=4096;
    location / {{ proxy_pass http://llm; proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_buffering off; }} }} }}
""")
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    subprocess.run([binary, "-c", conf, "-p", work], check=True)
    for _ in range(100):
        try:
            with open(os.path.join(work, "nginx.pid")) as f:
                master = int(f.read())
            break
        except (OSError, ValueError):
            time.sleep(0.02)
    time.sleep(0.2)
    children = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout.split()
    return port, int(children[0]), master


async def main():
    raise_descriptor_limit(65536)
    upstream = await asyncio.start_server(provider, "127.0.0.1", 0, backlog=8192)
    provider_port = upstream.sockets[0].getsockname()[1]
    biggest = max(SIZES)
    config = stream_limits(biggest)
    work = tempfile.mkdtemp()
    nginx_port, nginx_worker, nginx_master = nginx(work, provider_port)
    servers = []

    def agentgate(path, kind):
        """A server of its own for each path, so its RSS grows from its own idle."""
        server = BenchServer(BUILD, provider_port, config)
        servers.append(server)
        token = server.provision(safety=None if os.environ.get("SAFETY") == "none"
                                 else {"detect": ["credit_card", "secret"]})
        if kind == "api":
            return (server.port, path, f"fl-api-org: acme\r\nfl-api-env: prod\r\nfl-api-token: {token}\r\n",
                    {"message": "hi"}, "api", server.pid)
        return (server.port, path, f"Authorization: Bearer {server.api_key}\r\n",
                dict(chat, model="bench"), "chat", server.pid)

    chat = {"model": "gpt-bench", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    try:
        paths = [
            ("provider direct", provider_port, "/v1/chat/completions", "", chat, "chat", None),
            ("nginx proxy_pass", nginx_port, "/v1/chat/completions", "", chat, "chat", nginx_worker),
            ("agentgate /api", *agentgate("/api/agents/bench/invoke", "api")),
            ("agentgate /v1", *agentgate("/v1/chat/completions", "chat")),
        ]
        print(f"command: {'SAFETY=none ' if os.environ.get('SAFETY') == 'none' else ''}"
              f"python3 bench/streams.py {BUILD} {' '.join(map(str, SIZES))}  "
              f"(provider: first token {FIRST_TOKEN_S * 1000:.0f} ms, then {TOKEN_GAP_S * 1000:.0f} ms "
              f"a token, {TOKENS} tokens; {os.cpu_count()} cores)")
        for n in SIZES:
            for warm in paths[2:]:
                await load(5, *warm[1:])  # warm each server (a few: its RSS is measured next)
            direct_p50 = None
            for name, *rest in paths:
                profile = os.environ.get("PROFILE")
                if profile:
                    os.makedirs(profile, exist_ok=True)
                    profile = os.path.join(profile, f"{name.split()[-1].strip('/')}-{n}.perf")
                out, cpu, rss = await load(n, *rest, profile=profile)
                firsts = [a[0] for a in out if a]
                gaps = [b - a for arr in out for a, b in zip(arr, arr[1:])]
                texts = sum(1 for a in out if a)
                p50 = pct(firsts, 0.5) * 1000
                direct_p50 = direct_p50 if direct_p50 is not None else p50
                line = (f"N={n:5d} {name:17s} TTFT p50 {p50:6.1f} ms (+{p50 - direct_p50:5.1f}) "
                        f"p99 {pct(firsts, 0.99) * 1000:6.1f} ms, gap p99 {pct(gaps, 0.99) * 1000:6.1f} ms, "
                        f"{texts}/{n} streamed")
                if rest[-1]:
                    line += (f", CPU {cpu / (n * TOKENS) * 1e6:6.1f} ms/1k tokens, "
                             f"RSS {rss / n:5.1f} KiB/stream")
                print(line, flush=True)
    finally:
        for server in servers:
            server.stop()
        subprocess.run(["kill", str(nginx_master)])
        shutil.rmtree(work, ignore_errors=True)
        upstream.close()


if __name__ == "__main__":
    asyncio.run(main())
