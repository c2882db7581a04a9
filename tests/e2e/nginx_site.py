"""nginx configured with the very block docs/deployment.md gives operators: only the upstream
addresses and the listener are replaced. Used by the load-balancer tests and bench/.

    python3 tests/e2e/nginx_site.py DIR PORT UPSTREAM...   writes DIR/nginx.conf
"""
import os
import re
import sys

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "deployment.md")


def documented_site(upstreams, port):
    """The docs' nginx block with these servers and a plain-HTTP loopback listener (no TLS)."""
    block = re.search(r"```nginx\n(.*?)```", open(DOCS).read(), re.S).group(1)
    servers = re.findall(r"^(\s*)server \S+:\d+( [^;]*)?;\n", block, re.M)
    assert servers, "docs/deployment.md has no upstream servers"
    indent, params = servers[0]
    block = re.sub(r"^\s*server \S+:\d+[^;]*;\n", "", block, flags=re.M)
    mine = "".join(f"{indent}server {u}{params or ''};\n" for u in upstreams)
    block = re.sub(r"(upstream \w+ \{\n)", lambda m: m.group(1) + mine, block, count=1)
    block = re.sub(r"^\s*ssl_\w+ [^;]*;\n", "", block, flags=re.M)  # tests speak plain HTTP
    block, listeners = re.subn(r"listen [^;]*;", f"listen 127.0.0.1:{port};", block)
    assert listeners == 1, "docs/deployment.md should have one listen directive"
    return block


def write_conf(directory, port, upstreams):
    """A whole nginx.conf in `directory`: pid, logs and temp files stay inside it. The access log
    names the upstream that answered each request."""
    user = "user root;" if os.getuid() == 0 else ""  # workers must reach the temp dirs below
    conf = os.path.join(directory, "nginx.conf")
    with open(conf, "w") as out:
        out.write(f"""{user}
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
{documented_site(upstreams, port)}
}}
""")
    return conf


if __name__ == "__main__":
    write_conf(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
