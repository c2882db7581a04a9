"""A real nginx in front of agentgate servers, configured as docs/deployment.md says (nginx_site)."""
import shutil
import socket
import subprocess
import time

from conftest import HttpEndpoint
from nginx_site import write_conf
from stores import free_port


def nginx_binary():
    """Debian installs nginx in /usr/sbin, which is not on a normal user's PATH."""
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")


class Nginx(HttpEndpoint):
    def __init__(self, directory, upstreams):
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed (scripts/install-deps.sh installs it)")
        self.dir = directory
        self.host, self.port = "127.0.0.1", free_port()
        conf = write_conf(str(directory), self.port, upstreams)
        self.proc = subprocess.Popen([binary, "-e", f"{directory}/error.log", "-p", str(directory), "-c", conf,
                                      "-g", "daemon off;"],
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
