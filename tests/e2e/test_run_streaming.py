"""A watched run's reply streamed from the provider as the model writes it (docs/runs.md, "Safety on
a stream"), read by the WhatWG `eventsource` client: both providers' stream formats, tool arguments
in pieces, a stream cut halfway (retried, its text taken back), a secret and a card number split
across many deltas never shown, and cancel while the model streams."""
import json
import signal
import socket

import pytest

from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import FakeToolServer, anthropic_text, anthropic_tools, openai_text
from test_runs import assert_whole, cancel_run, follow, get_run, headers, start, wait_for, wait_status

LONG = ("Your order left the warehouse on Monday morning and is now with the carrier, who scanned it at "
        "the regional hub last night. It should reach you by Thursday at the latest; I will tell you at once "
        "if anything changes before then, and you can always ask me again.")


def texts(events, call=None):
    return "".join(e["data"]["text"] for e in events
                   if e["type"] == "text.delta" and (call is None or e["data"].get("call") == call))


def without_ids(value):
    """The events as shown, less their ids (`id`, `run_id`, A2A's `taskId`, ...): random hex ids may
    hold any four digits."""
    if isinstance(value, dict):
        return {k: without_ids(v) for k, v in value.items()
                if k != "id" and not k.endswith("_id") and not k.endswith("Id")}
    if isinstance(value, list):
        return [without_ids(v) for v in value]
    return value


def test_an_openai_reply_streams_as_the_model_writes_it_and_costs_what_a_plain_one_does(start_server, llm):
    tenant = start(start_server, llm)
    llm.push(dict(openai_text(LONG, input_tokens=120, output_tokens=40), piece=3, event_delay=0.005))
    events = follow(tenant, "/api/agents/bot/invoke", body={"message": "where is it?"})["events"]
    assert_whole(events)
    types = [e["type"] for e in events]
    assert types.count("text.delta") >= 3, types
    assert types.index("text.delta") < types.index("model.finished")  # shown while the model wrote
    assert texts(events) == LONG
    sent = llm.requests[0]["body"]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    done = events[-1]["data"]
    assert done["response"] == LONG and done["blocked"] is False
    # The same reply asked for plainly: not streamed, and the same usage and cost.
    llm.push(openai_text(LONG, input_tokens=120, output_tokens=40))
    status, _, plain = tenant.invoke("bot", {"message": "where is it?"})
    assert status == 200 and "stream" not in llm.requests[1]["body"]
    assert plain["usage"] == done["usage"] and plain["response"] == LONG
    # Ended, the run reads back whole from the store and is listed with the environment's runs.
    run_id = events[0]["data"]["run_id"]
    status, _, run = get_run(tenant, run_id)
    assert status == 200 and run["status"] == "completed" and run["result"] == done, run
    status, _, raw = tenant.server.request("GET", f"/api/runs/{run_id}/events", headers=headers(tenant))
    assert status == 200 and raw.count("event: run.completed") == 1 and LONG in raw
    status, _, listed = tenant.server.admin("GET", f"/orgs/{tenant.org}/environments/prod/runs")
    assert status == 200 and [r["run_id"] for r in listed["runs"]] == [run_id]


def test_an_anthropic_stream_carries_tool_input_in_pieces_then_the_reply(start_server, llm):
    tools = FakeToolServer()
    try:
        server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
        tenant = Tenant(server)
        tenant.agent("claude", provider="fake-anthropic", model="claude-test",
                     tools=[{"type": "http", "name": "track", "description": "Track an order",
                             "parameters": {"type": "object"}, "url": f"http://127.0.0.1:{tools.port}/track",
                             "method": "POST"}])
        llm.push(dict(anthropic_tools([("track", {"order": "A-1", "carrier": "DHL"})], text="Let me check."),
                      piece=3),
                 dict(anthropic_text(LONG, input_tokens=200, output_tokens=60), piece=5))
        events = follow(tenant, "/api/agents/claude/invoke", body={"message": "where is A-1?"})["events"]
        assert_whole(events)
        assert json.loads(tools.calls[0]["body"]) == {"order": "A-1", "carrier": "DHL"}
        assert texts(events, call=1) == "Let me check."  # a step's commentary, whole once it passed
        assert texts(events, call=2) == LONG
        assert all(r["body"]["stream"] is True for r in llm.requests)
        done = events[-1]["data"]
        assert done["response"] == LONG
        assert done["usage"]["input_tokens"] == 12 + 200 and done["usage"]["output_tokens"] == 6 + 60
    finally:
        tools.close()


def test_a_stream_cut_halfway_is_retried_and_its_text_taken_back(start_server, llm):
    tenant = start(start_server, llm)
    llm.push(dict(openai_text(LONG), piece=4, cut_after=45), openai_text(LONG))
    events = follow(tenant, "/api/agents/bot/invoke", body={"message": "where is it?"})["events"]
    assert_whole(events)
    assert llm.cut_streams == 1 and len(llm.requests) == 2
    assert texts(events, call=1), "the cut call had shown some of its text"
    assert LONG.startswith(texts(events, call=1))
    failed = [e["data"] for e in events if e["type"] == "model.finished" and e["data"]["call"] == 1]
    assert failed == [{"call": 1, "failure": "transient"}]
    retracted = [e for e in events if e["type"] == "text.retracted"]
    assert [e["data"] for e in retracted] == [{"reason": "model_call_failed", "call": 1}]
    assert texts(events, call=2) == LONG
    assert events[-1]["data"]["response"] == LONG


@pytest.mark.parametrize("provider", ["fake-openai", "fake-anthropic"])
def test_a_secret_and_a_card_number_split_across_deltas_never_reach_the_stream(start_server, llm, provider):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    model = "gpt-test" if provider == "fake-openai" else "claude-test"
    tenant.agent("bot", provider=provider, model=model,
                 safety={"detect": ["credit_card", "secret"], "placeholder": "Withheld."})
    reply = (LONG + " The card on file is 4111 1111 1111 1111 and the key is "
             "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345. " + LONG)
    make = openai_text if provider == "fake-openai" else anthropic_text
    for piece in (1, 2, 3, 7):
        llm.push(dict(make(reply), piece=piece))
        seen = follow(tenant, "/api/agents/bot/invoke", body={"message": "tell me everything"})
        events = seen["events"]
        assert_whole(events)
        shown = json.dumps(without_ids(events))
        for leak in ("4111", "1111 1111", "sk-proj", "ABCDEFGHIJ"):
            assert leak not in shown, (piece, leak)
        assert texts(events), "the text before them streamed"
        assert events[-2]["type"] == "text.retracted" and events[-2]["data"] == {"reason": "blocked"}
        done = events[-1]["data"]
        assert done["blocked"] is True and done["response"] == "Withheld."
        # The run's stored events hold none of it either.
        run_id = events[0]["data"]["run_id"]
        status, _, raw = tenant.server.request("GET", f"/api/runs/{run_id}/events", headers=headers(tenant))
        # Without the run's own id, whose random hex may hold "4111" (it did once, at 122a662).
        stored = raw.replace(run_id, "")
        assert status == 200 and "4111" not in stored and "sk-proj" not in stored


def test_canceling_while_the_model_streams_stores_and_spends_nothing(start_server, llm):
    tenant = start(start_server, llm)
    llm.push(dict(openai_text(LONG * 4), piece=2, event_delay=0.02))
    _, _, queued = tenant.invoke("bot", {"message": "write a lot", "stateful": True, "background": True})

    # Follow the run's events until its reply starts to show, then cancel it.
    sock = socket.create_connection((tenant.server.host, tenant.server.port), timeout=20)
    head = "".join(f"{k}: {v}\r\n" for k, v in headers(tenant).items())
    sock.sendall(f"GET /api/runs/{queued['run_id']}/events HTTP/1.1\r\nHost: x\r\n{head}\r\n".encode())
    got = b""
    while b"event: text.delta" not in got:
        chunk = sock.recv(4096)
        assert chunk, got
        got += chunk
    sock.close()
    status, _, run = cancel_run(tenant, queued["run_id"])
    assert status == 200 and run["status"] == "canceled", run
    wait_for(lambda: llm.disconnects == 1)  # the provider's stream was closed with the run
    assert tenant.conversation(queued["conversation_id"])[0] == 404
    usage = tenant.settled_usage()
    assert usage["total_spent_usd"] == 0 and usage["total_reserved_usd"] == 0
    assert wait_status(tenant, queued["run_id"], {"canceled"})["status"] == "canceled"


def stream_chunks(tenant, body):
    """A streamed invoke's response read to its end: its chunks and False, or its whole body and
    True when it came with a length (all of it ready with its head: one send, docs/runs.md)."""
    sock = socket.create_connection((tenant.server.host, tenant.server.port), timeout=20)
    payload = json.dumps(body).encode()
    head = "".join(f"{k}: {v}\r\n" for k, v in headers(tenant).items())
    sock.sendall(f"POST /api/agents/bot/invoke HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{head}"
                 f"accept: text/event-stream\r\ncontent-length: {len(payload)}\r\n\r\n".encode() + payload)
    raw = b""
    while chunk := sock.recv(65536):
        raw += chunk
    sock.close()
    head_end = raw.index(b"\r\n\r\n")
    head = raw[:head_end].lower()
    assert b"content-type: text/event-stream" in head, head
    if b"content-length: " in head:
        assert b"transfer-encoding" not in head, head
        length = int(head.split(b"content-length: ")[1].split(b"\r\n")[0])
        assert len(raw) == head_end + 4 + length, (len(raw), head)
        return [raw[head_end + 4:].decode()], True
    assert b"transfer-encoding: chunked" in head, head
    rest, chunks = raw[head_end + 4:], []
    while True:
        size_end = rest.index(b"\r\n")
        size = int(rest[:size_end], 16)
        if size == 0:
            return chunks, False
        chunks.append(rest[size_end + 2:size_end + 2 + size].decode())
        rest = rest[size_end + 2 + size + 2:]


def test_a_quick_streamed_turn_is_one_send_and_a_slow_one_shows_its_events_as_they_happen(start_server, llm):
    """The head goes out with the events of the stream's first 50 ms (docs/runs.md): a turn that
    ends by then is the head and every event in one send, a plain body with its length; a slower
    one's first events are sent, chunked, before its end."""
    tenant = start(start_server, llm)
    whole = []
    for _ in range(5):  # on a loaded machine one turn may pass 50 ms; not all five
        llm.push(openai_text("Quick."))
        chunks, with_length = stream_chunks(tenant, {"message": "hi"})
        assert "event: run.completed" in chunks[-1], chunks
        assert chunks[0].startswith("id: 1\nevent: run.started\n"), chunks
        whole.append(with_length)
    assert any(whole), whole
    llm.push(dict(openai_text("Slow."), delay=0.4))
    chunks, with_length = stream_chunks(tenant, {"message": "hi"})
    assert not with_length and len(chunks) >= 2 and "event: run.started" in chunks[0], chunks
    assert "run.completed" not in chunks[0] and "event: run.completed" in chunks[-1], chunks


def test_a_streamed_turn_runs_to_its_end_on_its_stream_while_the_server_drains(start_server, llm):
    """The run of a streamed invoke runs in its stream (docs/runs.md): a server told to stop lets
    it finish within the drain, and its client gets all of it, its end too, not a stream cut."""
    tenant = start(start_server, llm)
    llm.push(dict(openai_text("Finished while the server stopped."), delay=1.0))
    sock = socket.create_connection((tenant.server.host, tenant.server.port), timeout=20)
    payload = json.dumps({"message": "hi"}).encode()
    head = "".join(f"{k}: {v}\r\n" for k, v in headers(tenant).items())
    sock.sendall(f"POST /api/agents/bot/invoke HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{head}"
                 f"accept: text/event-stream\r\ncontent-length: {len(payload)}\r\n\r\n".encode() + payload)
    got = b""
    while b"event: model.started" not in got:
        chunk = sock.recv(65536)
        assert chunk, got
        got += chunk
    tenant.server.proc.send_signal(signal.SIGTERM)  # while the model is still writing
    while chunk := sock.recv(65536):
        got += chunk
    sock.close()
    text = got.decode()
    assert "event: run.completed" in text, text
    completed = text.split("event: run.completed\ndata: ", 1)[1].split("\n", 1)[0]
    assert json.loads(completed)["response"] == "Finished while the server stopped."
    assert text.endswith("0\r\n\r\n"), text[-200:]  # the chunked body ended, not cut
    assert tenant.server.proc.wait(15) == 0
