"""A real nginx in front of agentgate servers, configured with the very block that
docs/deployment.md gives operators: only the upstream addresses and the listener are replaced."""
import os
import re
import shutil
import socket
import subprocess
import time

from conftest import HttpEndpoint
from stores import free_port

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "deployment.md")


def nginx_binary():
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)


def documented_site(upstreams, port):
    """The docs' nginx block with our servers and a plain-HTTP loopback listener."""
    block = re.search(r"```nginx\n(.*?)```", open(DOCS).read(), re.S).group(1)
    servers = re.findall(r"^(\s*)server \S+:\d+( [^;]*)?;\n", block, re.M)
    assert servers, "docs/deployment.md has no upstream servers"
    indent, params = servers[0]
    block = re.sub(r"^\s*server \S+:\d+[^;]*;\n", "", block, flags=re.M)
    mine = "".join(f"{indent}server {u}{params or ''};\n" for u in upstreams)
    block = re.sub(r"(upstream \w+ \{\n)", lambda m: m.group(1) + mine, block, count=1)
    block, listeners = re.subn(r"listen [^;]*;", f"listen 127.0.0.1:{port};", block)
    assert listeners == 1, "docs/deployment.md should have one listen directive"
    return block


class Nginx(HttpEndpoint):
    def __init__(self, directory, upstreams):
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed (scripts/install-deps.sh installs it)")
        self.dir = directory
        self.host, self.port = "127.0.0.1", free_port()
        user = "user root;" if os.getuid() == 0 else ""  # workers must reach the temp dirs below
        (directory / "nginx.conf").write_text(f"""
{user}
worker_processes 2;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format upstreams '$upstream_addr $status $request_uri';
    access_log {directory}/access.log upstreams;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
{documented_site(upstreams, self.port)}
}}
""")
        self.proc = subprocess.Popen([binary, "-e", f"{directory}/error.log", "-p", str(directory), "-c",
                                      f"{directory}/nginx.conf", "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("nginx did not start: " + self.proc.stderr.read())
            try:
                socket.create_connection((self.host, self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.close()
        raise RuntimeError("nginx did not listen")

    def served_by(self, uri_part):
        """How many answered requests whose URI contains `uri_part` each upstream served."""
        counts = {}
        log = self.dir / "access.log"
        for line in log.read_text().splitlines() if log.exists() else []:
            upstream, status, uri = line.split(" ", 2)
            if uri_part in uri and status != "502":
                last = upstream.split(", ")[-1]  # "a, b" when nginx moved on to b
                counts[last] = counts.get(last, 0) + 1
        return counts

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
