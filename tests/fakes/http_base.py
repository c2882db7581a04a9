"""What every fake server in the tests shares: a quiet HTTP/1.1 handler that writes each response
in one segment (no Nagle: headers and body in separate small segments would stall on delayed ACKs,
about 40 ms a request), served on a loopback port by its own thread."""
import os
import ssl
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 65536
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass


def make_certificate(directory=None):
    """A self-signed certificate for localhost (openssl, as Debian ships it): (cert_file, key_file)."""
    directory = directory or tempfile.mkdtemp(prefix="fake-tls-")
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


class TlsServer(ThreadingHTTPServer):
    """Each connection's TLS handshake runs on its own thread, so a slow client holds up no other."""

    def __init__(self, address, handler_class, certificate):
        super().__init__(address, handler_class)
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(*certificate)

    def finish_request(self, request, client_address):
        try:
            tls = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return
        super().finish_request(tls, client_address)


def serve(handler_class, certificate=None):
    """Starts `handler_class` on 127.0.0.1 with a free port; returns the server (see .server_address).
    With `certificate` (cert_file, key_file) it speaks https."""
    server = (TlsServer(("127.0.0.1", 0), handler_class, certificate) if certificate
              else ThreadingHTTPServer(("127.0.0.1", 0), handler_class))
    server.daemon_threads = True
    # Its shutdown() waits for the loop's next look: a short one, or each test's teardown waits
    # half a second for every fake it used.
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    return server
