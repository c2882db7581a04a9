"""A fake LLM provider speaking the real wire formats: OpenAI-compatible POST .../chat/completions and
Anthropic POST /v1/messages. Tests script the replies in order; every request is recorded.

A scripted step is a dict:
  {"status": 200, "json": {...}}         reply with this JSON body
  {"status": 200, "raw": "text"}         reply with these bytes (e.g. malformed JSON)
  {"delay": 2.5, ...}                    wait first; a client that hangs up meanwhile is recorded
  {"headers": {"retry-after": "1"}}      extra response headers
With no script left, it answers "echo: <last user text>".
"""
import json
import select
import threading
import time
from fakes.http_base import FakeHandler, serve


def openai_text(text, input_tokens=10, output_tokens=5):
    return {"status": 200, "json": {"id": "chatcmpl-1", "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens}}}


def openai_tools(calls, text=None, input_tokens=10, output_tokens=5):
    tool_calls = [{"id": f"call_{i}", "type": "function",
                   "function": {"name": name, "arguments": json.dumps(args)}} for i, (name, args) in enumerate(calls)]
    return {"status": 200, "json": {"id": "chatcmpl-2", "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": text, "tool_calls": tool_calls},
         "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens}}}


def openai_error(status, code, message="error", type_=None, headers=None):
    step = {"status": status, "json": {"error": {"message": message, "type": type_ or code, "code": code}}}
    if headers:
        step["headers"] = headers
    return step


def anthropic_text(text, input_tokens=12, output_tokens=6):
    return {"status": 200, "json": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
                                    "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                                    "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}}


def anthropic_tools(calls, text=None):
    content = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args}
                for i, (name, args) in enumerate(calls)]
    return {"status": 200, "json": {"id": "msg_2", "type": "message", "role": "assistant", "content": content,
                                    "stop_reason": "tool_use", "usage": {"input_tokens": 12, "output_tokens": 6}}}


def anthropic_error(status, type_, message="error", headers=None):
    step = {"status": status, "json": {"type": "error", "error": {"type": type_, "message": message}}}
    if headers:
        step["headers"] = headers
    return step


class FakeLlm:
    def __init__(self):
        self.script = []
        self.requests = []
        self.disconnects = 0
        self.in_flight = 0  # requests being answered now, and the most at once
        self.max_in_flight = 0
        self.lock = threading.Lock()
        fake = self

        class Handler(FakeHandler):

            def do_POST(self):
                with fake.lock:
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    self.answer()
                finally:
                    with fake.lock:
                        fake.in_flight -= 1

            def answer(self):
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake.lock:
                    fake.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                          "body": body})
                    step = fake.script.pop(0) if fake.script else None
                if step is None:
                    step = fake.default_reply(self.path, body)
                if step.get("delay"):
                    if fake._client_left(self.connection, step["delay"]):
                        with fake.lock:
                            fake.disconnects += 1
                        self.close_connection = True
                        return
                payload = step["raw"].encode() if "raw" in step else json.dumps(step.get("json", {})).encode()
                self.send_response(step.get("status", 200))
                self.send_header("content-type", "application/json")
                for k, v in step.get("headers", {}).items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = serve(Handler)
        self.port = self.server.server_address[1]

    @staticmethod
    def _client_left(sock, seconds):
        """Waits `seconds`; True as soon as the client closes its side."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            readable, _, _ = select.select([sock], [], [], min(0.05, max(0, end - time.monotonic())))
            if readable:
                try:
                    if sock.recv(1, 2) == b"":  # MSG_PEEK: EOF means the client hung up
                        return True
                except OSError:
                    return True
        return False

    @staticmethod
    def default_reply(path, body):
        last = ""
        for m in body.get("messages", []):
            if m.get("role") == "user" and isinstance(m.get("content"), str):
                last = m["content"]
        if path.endswith("/v1/messages"):
            return anthropic_text("echo: " + last)
        return openai_text("echo: " + last)

    def push(self, *steps):
        with self.lock:
            self.script.extend(steps)

    def reset(self):
        with self.lock:
            self.script.clear()
            self.requests.clear()
            self.disconnects = 0
            self.max_in_flight = 0

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class FakeToolServer:
    """An operator's HTTP tool: records calls and answers JSON, after `delay` seconds (a caller that
    hangs up meanwhile is counted in `disconnects`)."""

    def __init__(self):
        self.calls = []
        self.delay = 0
        self.disconnects = 0
        fake = self

        class Handler(FakeHandler):

            def _answer(self):
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length) if length else b""
                fake.calls.append({"method": self.command, "path": self.path, "body": raw.decode(),
                                   "headers": {k.lower(): v for k, v in self.headers.items()}})
                if fake.delay and FakeLlm._client_left(self.connection, fake.delay):
                    fake.disconnects += 1
                    self.close_connection = True
                    return
                payload = json.dumps({"status": "shipped", "eta_days": 2}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _answer

        self.server = serve(Handler)
        self.port = self.server.server_address[1]

    def close(self):
        self.server.shutdown()
        self.server.server_close()
