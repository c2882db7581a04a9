"""A fake LLM provider speaking the real wire formats: OpenAI-compatible POST .../chat/completions and
Anthropic POST /v1/messages. Tests script the replies in order; every request is recorded.

A scripted step is a dict:
  {"status": 200, "json": {...}}         reply with this JSON body
  {"status": 200, "raw": "text"}         reply with these bytes (e.g. malformed JSON)
  {"delay": 2.5, ...}                    wait first; a client that hangs up meanwhile is recorded
  {"headers": {"retry-after": "1"}}      extra response headers
With no script left, it answers "echo: <last user text>".

With `emulate_cache` set, a 200 JSON reply's usage reports prompt caching the way the real APIs do
(its output tokens stay the step's; input is counted by the fake, about 4 characters a token):
  Anthropic: blocks up to a cache_control breakpoint are written to the cache
    (cache_creation_input_tokens); a later request whose prefix, up to a block at or before its
    last breakpoint, was written before reads it (cache_read_input_tokens); input_tokens is the rest.
  OpenAI: a prompt of 1,024 tokens or more is cached at each message boundary; a later prompt
    reads its longest cached prefix, in 128-token steps (usage.prompt_tokens_details.cached_tokens).
Each reported usage is appended to `cache_usage`.

Structured output is checked as the real APIs check it, and a request that breaks their rules gets
their 400: OpenAI's response_format {"type": "json_schema", "json_schema": {"name", "schema",
"strict"}} (strict: every object closed with additionalProperties false and all its properties
required); Anthropic's output_config {"format": {"type": "json_schema", "schema"}} (every object
closed, no string or number bounds).

A request with "stream": true gets a 200 JSON step as that provider streams it (OpenAI chunks ending
in "data: [DONE]", usage last when stream_options.include_usage asks; Anthropic's message_start ...
message_stop events), chunked, one event at a time. Streaming options of a step:
  {"piece": 4}            text (and tool arguments) in pieces of this many characters
  {"event_delay": 0.05}   a pause before each event (a client that hangs up is recorded)
  {"cut_after": 3}        the connection is dropped after this many events: a stream cut halfway
"""
import hashlib
import json
import select
import threading
import time
from fakes.http_base import FakeHandler, serve


def openai_text(text, input_tokens=10, output_tokens=5):
    return {"status": 200, "json": {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-test-0001", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens}}}


def openai_tools(calls, text=None, input_tokens=10, output_tokens=5):
    tool_calls = [{"id": f"call_{i}", "type": "function",
                   "function": {"name": name, "arguments": json.dumps(args)}} for i, (name, args) in enumerate(calls)]
    return {"status": 200, "json": {"id": "chatcmpl-2", "object": "chat.completion", "model": "gpt-test-0001", "choices": [
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


def _pieces(text, size):
    return [text[i:i + size] for i in range(0, len(text), size)] if text else []


def openai_stream_events(reply, piece, include_usage):
    """An OpenAI chat.completion reply as its stream's data lines."""
    choice = reply["choices"][0]
    message = choice["message"]

    def chunk(delta, finish_reason=None):
        return {"id": reply.get("id", "chatcmpl-s"), "object": "chat.completion.chunk", "model": "gpt-test",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": p}) for p in _pieces(message.get("content") or "", piece)]
    for i, call in enumerate(message.get("tool_calls") or []):
        events.append(chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                             "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        events += [chunk({"tool_calls": [{"index": i, "function": {"arguments": p}}]})
                   for p in _pieces(call["function"]["arguments"], piece)]
    events.append(chunk({}, choice.get("finish_reason", "stop")))
    if include_usage:
        events.append({"id": reply.get("id", "chatcmpl-s"), "object": "chat.completion.chunk", "choices": [],
                       "usage": reply.get("usage")})
    return [f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"]


def anthropic_stream_events(reply, piece):
    """An Anthropic message as its stream's events."""
    usage = reply.get("usage", {})

    def event(name, data):
        return f"event: {name}\ndata: {json.dumps(data)}\n\n"

    events = [event("message_start", {"type": "message_start", "message": {
        "id": reply.get("id", "msg_s"), "type": "message", "role": "assistant", "content": [],
        "model": reply.get("model", "claude"), "stop_reason": None,
        "usage": {"input_tokens": usage.get("input_tokens", 0), "output_tokens": 1,
                  "cache_read_input_tokens": usage.get("cache_read_input_tokens", 0),
                  "cache_creation_input_tokens": usage.get("cache_creation_input_tokens", 0)}}}),
        event("ping", {"type": "ping"})]
    for index, block in enumerate(reply.get("content", [])):
        if block["type"] == "text":
            events.append(event("content_block_start", {"type": "content_block_start", "index": index,
                                                        "content_block": {"type": "text", "text": ""}}))
            events += [event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                     "delta": {"type": "text_delta", "text": p}})
                       for p in _pieces(block["text"], piece)]
        else:
            events.append(event("content_block_start", {"type": "content_block_start", "index": index,
                                                        "content_block": {"type": "tool_use", "id": block["id"],
                                                                          "name": block["name"], "input": {}}}))
            events += [event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                     "delta": {"type": "input_json_delta", "partial_json": p}})
                       for p in _pieces(json.dumps(block["input"]), piece)]
        events.append(event("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(event("message_delta", {"type": "message_delta",
                                          "delta": {"stop_reason": reply.get("stop_reason"), "stop_sequence": None},
                                          "usage": {"output_tokens": usage.get("output_tokens", 0)}}))
    events.append(event("message_stop", {"type": "message_stop"}))
    return events


_BOUNDS = ("minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
           "minItems", "maxItems")


# What strict mode refuses outright, whatever the provider: composition it cannot decode and the
# annotations the SDKs write that it does not take.
_STRICT_REFUSED = ("allOf", "oneOf", "not", "if", "then", "else", "patternProperties", "$schema",
                   "default")


def _strict_problem(schema, where, bounds_allowed, root=None):
    """Why constrained decoding would refuse `schema`, or None."""
    root = schema if root is None else root
    if not isinstance(schema, dict):
        return f"{where}: a schema must be an object"
    for keyword in _STRICT_REFUSED:
        if keyword in schema:
            return f"{where}: '{keyword}' is not supported in strict mode"
    ref = schema.get("$ref")
    if ref is not None:
        target = root
        for part in str(ref).lstrip("#").strip("/").split("/") if ref != "#" else []:
            target = target.get(part) if isinstance(target, dict) else None
        if not str(ref).startswith("#") or target is None:
            return f"{where}: reference {ref} can't be resolved"
    for defs in ("$defs", "definitions"):
        for key, sub in schema.get(defs, {}).items():
            problem = _strict_problem(sub, f"{where}.{defs}.{key}", bounds_allowed, root)
            if problem:
                return problem
    if not bounds_allowed:
        for bound in _BOUNDS:
            if bound in schema:
                return f"{where}: '{bound}' is not supported"
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            return f"{where}: 'additionalProperties' is required to be supplied and to be false"
        if set(schema.get("required", [])) != set(schema.get("properties", {})):
            return f"{where}: 'required' is required to include every key in properties"
    for key, sub in schema.get("properties", {}).items():
        problem = _strict_problem(sub, f"{where}.properties.{key}", bounds_allowed, root)
        if problem:
            return problem
    if "items" in schema:
        problem = _strict_problem(schema["items"], f"{where}.items", bounds_allowed, root)
        if problem:
            return problem
    for i, option in enumerate(schema.get("anyOf", [])):
        problem = _strict_problem(option, f"{where}.anyOf[{i}]", bounds_allowed, root)
        if problem:
            return problem
    return None


def structured_output_refusal(path, body):
    """The provider's 400 for a structured-output request it would refuse, else None."""
    if path.endswith("/v1/messages"):
        config = body.get("output_config")
        if config is None:
            return None
        fmt = config.get("format") or {}
        problem = "output_config.format.type must be json_schema" if fmt.get("type") != "json_schema" else \
            _strict_problem(fmt.get("schema"), "output_config.format.schema", bounds_allowed=False)
        return None if problem is None else anthropic_error(400, "invalid_request_error", problem)
    fmt = body.get("response_format")
    if fmt is None or fmt.get("type") == "text":
        return None
    if fmt.get("type") == "json_object":
        # OpenAI's JSON mode refuses a prompt that never says JSON.
        said = json.dumps(body.get("messages", [])).lower()
        if "json" not in said:
            return openai_error(400, "invalid_request_error",
                                "'messages' must contain the word 'json' in some form, to use "
                                "'response_format' of type 'json_object'.", type_="invalid_request_error")
        return None
    named = fmt.get("json_schema") or {}
    if fmt.get("type") != "json_schema" or not named.get("name") or "schema" not in named:
        return openai_error(400, "invalid_json_schema", "response_format: a json_schema needs a name and a schema",
                            type_="invalid_request_error")
    problem = _strict_problem(named["schema"], "schema", bounds_allowed=True) if named.get("strict") else None
    if problem is not None:
        return openai_error(400, "invalid_json_schema",
                            f"Invalid schema for response_format '{named['name']}': {problem}",
                            type_="invalid_request_error")
    return None


class FakeLlm:
    def __init__(self):
        self.script = []
        self.requests = []
        self.disconnects = 0
        self.cut_streams = 0
        self.in_flight = 0  # requests being answered now, and the most at once
        self.max_in_flight = 0
        self.emulate_cache = False
        self.cached_prefixes = set()
        self.cache_usage = []
        self.lock = threading.Lock()
        fake = self

        class Handler(FakeHandler):

            def do_POST(self):
                with fake.lock:
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                self.counted = True
                try:
                    self.answer()
                finally:
                    self.answered()

            def answered(self):
                # Called before the reply's last bytes go out: once the client has them it may
                # send its next request (another connection, another thread) at once, and this
                # one must not count as in flight then.
                with fake.lock:
                    if self.counted:
                        fake.in_flight -= 1
                        self.counted = False

            def answer(self):
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake.lock:
                    fake.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                          "body": body})
                    step = fake.script.pop(0) if fake.script else None
                refusal = structured_output_refusal(self.path, body)
                if refusal is not None:
                    step = refusal
                elif step is None:
                    step = fake.default_reply(self.path, body)
                if step.get("delay"):
                    if fake._client_left(self.connection, step["delay"]):
                        with fake.lock:
                            fake.disconnects += 1
                        self.close_connection = True
                        return
                if fake.emulate_cache and step.get("status", 200) == 200 and "json" in step:
                    step = fake.with_cache_usage(self.path, body, step)
                if body.get("stream") and step.get("status", 200) == 200 and "json" in step:
                    return self.stream(step, body)
                payload = step["raw"].encode() if "raw" in step else json.dumps(step.get("json", {})).encode()
                self.send_response(step.get("status", 200))
                self.send_header("content-type", "application/json")
                for k, v in step.get("headers", {}).items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.answered()
                self.wfile.write(payload)

            def stream(self, step, body):
                piece = step.get("piece", 4)
                if self.path.endswith("/v1/messages"):
                    events = anthropic_stream_events(step["json"], piece)
                else:
                    include_usage = (body.get("stream_options") or {}).get("include_usage", False)
                    events = openai_stream_events(step["json"], piece, include_usage)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                self.wfile.flush()
                for n, text in enumerate(events):
                    # Any end but the stream's own closes the connection.
                    self.close_connection = True
                    if "cut_after" in step and n == step["cut_after"]:
                        with fake.lock:
                            fake.cut_streams += 1
                        return  # the connection closes without the stream's end
                    if step.get("event_delay") and fake._client_left(self.connection, step["event_delay"]):
                        with fake.lock:
                            fake.disconnects += 1
                        return
                    data = text.encode()
                    try:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                        self.wfile.flush()
                    except OSError:
                        with fake.lock:
                            fake.disconnects += 1
                        return
                self.answered()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                self.close_connection = False

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
            if m.get("role") != "user":
                continue
            if isinstance(m.get("content"), str):
                last = m["content"]
            elif any(b.get("type") == "text" for b in m.get("content") or []):  # Anthropic's blocks
                last = "".join(b.get("text", "") for b in m["content"] if b.get("type") == "text")
        if path.endswith("/v1/messages"):
            return anthropic_text("echo: " + last)
        return openai_text("echo: " + last)

    @staticmethod
    def _tokens(item):
        return max(1, len(json.dumps(item, sort_keys=True)) // 4)

    def with_cache_usage(self, path, body, step):
        step = json.loads(json.dumps(step))  # a copy: scripted steps may be shared
        usage = step["json"].setdefault("usage", {})
        if path.endswith("/v1/messages"):
            usage.update(self._anthropic_cache(body))
        else:
            total, cached = self._openai_cache(body)
            usage["prompt_tokens"] = total
            usage["prompt_tokens_details"] = {"cached_tokens": cached}
        with self.lock:
            self.cache_usage.append(dict(usage))
        return step

    def _anthropic_cache(self, body):
        blocks = list(body.get("tools") or [])
        system = body.get("system")
        if isinstance(system, str):
            blocks.append({"type": "text", "text": system})
        elif isinstance(system, list):
            blocks.extend(system)
        for m in body.get("messages", []):
            content = m["content"]
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            blocks.extend(dict(b, role=m["role"]) for b in content)
        hashes, tokens, digest = [], [], hashlib.sha256()
        for b in blocks:
            plain = {k: v for k, v in b.items() if k != "cache_control"}
            digest.update(json.dumps(plain, sort_keys=True).encode())
            hashes.append(digest.copy().hexdigest())
            tokens.append(self._tokens(plain))
        marks = [i for i, b in enumerate(blocks) if "cache_control" in b]
        total = sum(tokens)
        if not marks:
            return {"input_tokens": total, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
        last = marks[-1]
        with self.lock:
            read_end = max((i + 1 for i in range(last + 1) if hashes[i] in self.cached_prefixes), default=0)
            self.cached_prefixes.update(hashes[i] for i in marks)
        read = sum(tokens[:read_end])
        written = sum(tokens[read_end:last + 1])
        return {"input_tokens": total - read - written, "cache_read_input_tokens": read,
                "cache_creation_input_tokens": written}

    def _openai_cache(self, body):
        hashes, tokens, digest = [], [], hashlib.sha256()
        for m in body.get("messages", []):
            digest.update(json.dumps(m, sort_keys=True).encode())
            hashes.append(digest.copy().hexdigest())
            tokens.append(self._tokens(m))
        total = sum(tokens)
        if total < 1024:
            return total, 0
        with self.lock:
            hit = max((i + 1 for i in range(len(hashes)) if hashes[i] in self.cached_prefixes), default=0)
            self.cached_prefixes.update(hashes)
        return total, (sum(tokens[:hit]) // 128) * 128

    def push(self, *steps):
        with self.lock:
            self.script.extend(steps)

    def reset(self):
        with self.lock:
            self.script.clear()
            self.requests.clear()
            self.disconnects = 0
            self.cut_streams = 0
            self.max_in_flight = 0
            self.cached_prefixes.clear()
            self.cache_usage.clear()

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
