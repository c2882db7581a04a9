#!/usr/bin/env python3
"""The metadata gateway's added latency: the same Tooling call (GET sobjects) sent N times straight to
a fake Salesforce org and N times through agentgate to that org, sequentially on keep-alive
connections. Prints medians and p99s and the ratio, with the command that made them.

    python3 bench/gateway_overhead.py [build/agentgate] [N]
"""
import http.client
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from fakes.fake_salesforce import FakeSalesforce  # noqa: E402

binary = sys.argv[1] if len(sys.argv) > 1 else "build/agentgate"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000


def timed(conn, method, path, body, headers):
    started = time.perf_counter()
    conn.request(method, path, body, headers)
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 200, resp.status
    return (time.perf_counter() - started) * 1000


def summary(ms):
    ms = sorted(ms)
    return statistics.median(ms), ms[int(len(ms) * 0.99) - 1]


org = FakeSalesforce()
work = tempfile.mkdtemp()
admin = "bench-admin-" + secrets.token_hex(8)
env = dict(os.environ, AGENTGATE_SERVER_LISTEN="127.0.0.1:0", AGENTGATE_STORE_URL=f"sqlite:{work}/db/agentgate.db",
           AGENTGATE_ADMIN_TOKEN=admin, AGENTGATE_MASTER_KEY=secrets.token_hex(32),
           AGENTGATE_CRM_ALLOW_HTTP="true")  # the fake org speaks plain http
log = open(f"{work}/server.log", "w+")
proc = subprocess.Popen([binary, "serve"], stdout=log, stderr=subprocess.STDOUT, env=env, text=True)
try:
    address = None
    while address is None:
        time.sleep(0.05)
        for line in open(f"{work}/server.log"):
            if '"event":"listening"' in line:
                address = json.loads(line)["address"]
    host, port = address.rsplit(":", 1)
    gw = http.client.HTTPConnection(host, int(port))
    a = {"authorization": f"Bearer {admin}", "content-type": "application/json"}
    for method, path, body in [("POST", "/admin/v1/orgs", {"id": "acme", "name": "Acme"}),
                               ("POST", "/admin/v1/orgs/acme/environments", {"name": "prod"})]:
        gw.request(method, path, json.dumps(body), a)
        gw.getresponse().read()
    gw.request("POST", "/admin/v1/orgs/acme/tokens", json.dumps({"name": "bench"}), a)
    issued = json.loads(gw.getresponse().read())
    token = issued["token"]
    gw.request("PUT", "/admin/v1/orgs/acme/environments/prod/grants",
               json.dumps({"token_id": issued["id"], "permissions": ["metadata_read"]}), a)
    gw.getresponse().read()
    gw.request("PUT", "/admin/v1/orgs/acme/environments/prod/crm", json.dumps(
        {"login_url": org.url, "client_id": org.client_id, "client_secret": org.client_secret,
         "refresh_token": next(iter(org.refresh_tokens))}), a)
    gw.getresponse().read()
    h = {"content-type": "application/json", "fl-api-org": "acme", "fl-api-env": "prod", "fl-api-token": token}
    body = json.dumps({"method": "GET", "path": "sobjects"})
    timed(gw, "POST", "/api/metadata-gateway", body, h)  # first call refreshes the session
    access = next(iter(org.access_tokens))
    direct = http.client.HTTPConnection("127.0.0.1", org.port)
    d = {"authorization": f"Bearer {access}"}
    direct_ms = [timed(direct, "GET", "/services/data/v64.0/sobjects", None, d) for _ in range(n)]
    gateway_ms = [timed(gw, "POST", "/api/metadata-gateway", body, h) for _ in range(n)]
    dm, dp = summary(direct_ms)
    gm, gp = summary(gateway_ms)
    print(f"command: python3 bench/gateway_overhead.py {binary} {n}  ({os.cpu_count()} cores, sequential, keep-alive)")
    print(f"direct to the fake org:   median {dm:.3f} ms, p99 {dp:.3f} ms   (baseline)")
    print(f"through agentgate:        median {gm:.3f} ms, p99 {gp:.3f} ms")
    print(f"added by the gateway:     median {gm - dm:.3f} ms; ratio to baseline {gm / dm:.2f}x")
finally:
    proc.terminate()
    proc.wait(10)
    shutil.rmtree(work, ignore_errors=True)
    org.close()
