#!/usr/bin/env python3
"""Instructions per demo turn, counted rather than timed (the same on a noisy machine as on a quiet
one): the binary runs under valgrind's callgrind with one I/O thread and the demo agent (offline
model, SQLite); 200 turns warm it up, then the counts of the next 1,000 turns are dumped apart.
Prints each dump's total; the 1,000 turns' dump and the one after it, divided by 1,000, is the figure.

    python3 bench/turn_instructions.py build-release/agentgate
    TRACING=1.0 python3 bench/turn_instructions.py build-release/agentgate   (spans exported at that
        ratio to a collector here that answers 200, as the OTLP exporter's real work)
    STREAMED=1 python3 bench/turn_instructions.py build-release/agentgate    (each turn streamed:
        Accept: text/event-stream, the run's events read to its end)
    CONCURRENCY=8 python3 bench/turn_instructions.py build-release/agentgate (the turns sent over that
        many connections at once, as a loaded server sees them: the store's group commit then
        writes several turns in one transaction)
"""
import http.client, json, os, secrets, shutil, subprocess, sys, tempfile, time
if shutil.which("valgrind") is None:  # Debian's valgrind: callgrind and callgrind_control
    subprocess.run(["apt-get", "install", "-y", "-q", "valgrind"], check=True)
binary = os.path.abspath(sys.argv[1])
work = tempfile.mkdtemp()
env = dict(os.environ, AGENTGATE_SERVER_LISTEN="127.0.0.1:0", AGENTGATE_STORE_URL=f"sqlite:{work}/var/db",
           AGENTGATE_ADMIN_TOKEN="cg-admin-" + secrets.token_hex(8), AGENTGATE_MASTER_KEY=secrets.token_hex(32),
           AGENTGATE_SERVER_IO_THREADS="1")
if os.environ.get("TRACING"):
    import http.server, threading
    class Collector(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200); self.send_header("content-length", "0"); self.end_headers()
        def log_message(self, *args):
            pass
    collector = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = f"http://127.0.0.1:{collector.server_address[1]}/v1/traces"
    env["OTEL_TRACES_SAMPLER"] = "traceidratio"
    env["OTEL_TRACES_SAMPLER_ARG"] = os.environ["TRACING"]
log = open(f"{work}/log", "w+")
proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={work}/cg.out", binary, "serve", "--demo"],
                        stdout=log, stderr=subprocess.STDOUT, env=env, cwd=work, text=True)
addr = None
while addr is None:
    time.sleep(0.2)
    if proc.poll() is not None:
        sys.exit("agentgate did not start: " + open(f"{work}/log").read())
    for line in open(f"{work}/log"):
        if '"event":"listening"' in line:
            addr = json.loads(line)["address"]
host, port = addr.rsplit(":", 1)
creds = dict(l.split("=", 1) for l in open(f"{work}/var/demo-credentials.txt").read().split())
h = {"content-type": "application/json", "fl-api-org": creds.get("org", creds.get("FL_API_ORG", "")),
     "fl-api-env": creds.get("env", creds.get("FL_API_ENV", "")), "fl-api-token": creds.get("token", creds.get("FL_API_TOKEN", ""))}
agent = creds.get("agent", creds.get("AGENT", "demo"))
if os.environ.get("STREAMED"):
    h["accept"] = "text/event-stream"
concurrency = int(os.environ.get("CONCURRENCY", "1"))
def send(n):
    conn = http.client.HTTPConnection(host, int(port), timeout=120)
    for _ in range(n):
        conn.request("POST", f"/api/agents/{agent}/invoke", json.dumps({"message": "hello"}), h)
        r = conn.getresponse(); body = r.read(); assert r.status == 200, r.status
        assert not os.environ.get("STREAMED") or b"run.completed" in body, body[-300:]
def turns(n):
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        for f in [pool.submit(send, n // concurrency) for _ in range(concurrency)]:
            f.result()
turns(200)
subprocess.run(["callgrind_control", "-d", str(proc.pid)], capture_output=True)
turns(1000)
subprocess.run(["callgrind_control", "-d", str(proc.pid)], capture_output=True)
time.sleep(float(os.environ.get("TRACING") and 6 or 0))  # the exporter's last batch, counted in the dump
subprocess.run(["callgrind_control", "-d", str(proc.pid)], capture_output=True)
proc.terminate(); proc.wait(60)
files = sorted((f for f in os.listdir(work) if f.startswith("cg.out.")), key=lambda f: int(f.split(".")[-1]))
tot = []
for f in files:
    for line in open(os.path.join(work, f)):
        if line.startswith("totals:") or line.startswith("summary:"):
            tot.append((f, int(line.split()[1])))
            break
print(tot)
# the 1,000 turns' dump, plus what the exporter did after them (its last batches) when tracing
print(f"instructions per turn: {(tot[1][1] + tot[2][1]) / 1000:,.0f}  (callgrind files in {work})")
