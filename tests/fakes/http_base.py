"""What every fake server in the tests shares: a quiet HTTP/1.1 handler that writes each response
in one segment (no Nagle: headers and body in separate small segments would stall on delayed ACKs,
about 40 ms a request), served on a loopback port by its own thread."""
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 65536
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass


def serve(handler_class):
    """Starts `handler_class` on 127.0.0.1 with a free port; returns the server (see .server_address)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
