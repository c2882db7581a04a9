"""Instructions per streamed token, counted rather than timed (issue 75 §3): the server runs under
valgrind's callgrind; N paced streamed `/api` turns (the provider of bench/streams.py: first token
after 300 ms, then one every 20 ms, 50 tokens; the agent checks for card numbers and secrets) warm
it, and the counts of the next N are dumped apart. Prints the total and what it comes to a token
(the turns' fixed costs included). Nearly the same on a noisy host as on a quiet one (a run
varies by about 3 %: the pace decides how many events a wake gathers; take the median of a few):
a change's A/B in user-space instructions, where bench/streams.py's CPU figures move by a tenth
between runs.

    python3 bench/streams_counted.py [build-dir] [N]     (default: build-release 50)
"""
import asyncio
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_server import BenchServer, stream_limits  # noqa: E402
from in_flight import raise_descriptor_limit  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build-release"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 50
sys.argv = sys.argv[:1]  # streams.py reads its own arguments at import
import streams  # noqa: E402


async def main():
    if shutil.which("valgrind") is None:  # Debian's valgrind: callgrind and callgrind_control
        subprocess.run(["apt-get", "install", "-y", "-q", "valgrind"], check=True)
    raise_descriptor_limit(65536)
    upstream = await asyncio.start_server(streams.provider, "127.0.0.1", 0, backlog=8192)
    provider_port = upstream.sockets[0].getsockname()[1]
    out = os.path.join(tempfile.mkdtemp(), "counted.out")
    os.environ["BENCH_WRAPPER"] = f"valgrind -q --tool=callgrind --callgrind-out-file={out}"
    server = BenchServer(BUILD, provider_port, stream_limits(N))
    del os.environ["BENCH_WRAPPER"]
    try:
        token = server.provision(safety={"detect": ["credit_card", "secret"]})
        args = (server.port, "/api/agents/bench/invoke",
                f"fl-api-org: acme\r\nfl-api-env: prod\r\nfl-api-token: {token}\r\n",
                {"message": "hi"}, "api", None)
        await streams.load(N, *args)  # warm: connections, statements, the allocator
        pid = str(server.pid)
        subprocess.run(["callgrind_control", "-z", pid], check=True, capture_output=True)
        arrivals, _, _ = await streams.load(N, *args)
        subprocess.run(["callgrind_control", "-d", "streams", pid], check=True, capture_output=True)
        tokens = streams.TOKENS * sum(1 for a in arrivals if a)
        dump = [f for f in glob.glob(out + "*") if "Trigger: dump streams" in open(f, errors="replace").read(4096)]
        total = next(int(line.split()[1]) for line in open(dump[0]) if line.startswith("summary:"))
        print(f"command: python3 bench/streams_counted.py {BUILD} {N}  (callgrind; {N} paced streams "
              f"of {streams.TOKENS} tokens, detectors on)")
        print(f"instructions: {total:,} for {tokens} tokens, {total / tokens:,.0f} a token")
    finally:
        server.stop()
        upstream.close()


asyncio.run(main())
