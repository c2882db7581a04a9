"""The soft deadline (answer early) and the hard cap (504, upstream canceled, nothing stored)."""
import threading
import time

import pytest

import stores
from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text, openai_tools




def start(start_server, llm, soft, hard):
    server = start_server(config_for(llm, f"answer_early_seconds = {soft}\nturn_timeout_seconds = {hard}"),
                          env={"FAKE_LLM_KEY": API_KEY})
    return Tenant(server)


def test_the_soft_deadline_answers_early_with_what_the_turn_had(start_server, llm):
    tenant = start(start_server, llm, soft=1, hard=10)
    tenant.agent("slow", actions=[{"name": "step", "description": "d"}])
    llm.push(dict(openai_tools([("step", {})], text="partial findings"), delay=1.2), openai_text("never sent"))
    status, _, body = tenant.invoke("slow", {"message": "go"})
    assert status == 200 and body["terminated_reason"] == "turn_timeout"
    assert body["response"].startswith("partial findings")
    assert len(llm.requests) == 1


def test_the_hard_cap_is_504_cancels_the_upstream_call_and_stores_nothing(start_server, llm):
    tenant = start(start_server, llm, soft=1, hard=2)
    tenant.agent("stuck")
    _, _, first = tenant.invoke("stuck", {"message": "hello", "stateful": True})
    cid = first["conversation_id"]
    llm.push(dict(openai_text("too late"), delay=30))
    started = time.monotonic()
    status, _, body = tenant.invoke("stuck", {"message": "this one hangs", "stateful": True, "conversation_id": cid})
    elapsed = time.monotonic() - started
    assert status == 504 and error_of(body)["code"] == "turn_timeout"
    assert 1.9 < elapsed < 5
    for _ in range(40):
        if llm.disconnects:
            break
        time.sleep(0.05)
    assert llm.disconnects == 1, "the upstream call was not canceled with its turn"
    _, _, convo = tenant.conversation(cid)
    assert [m["content"] for m in convo["messages"]] == ["hello", "echo: hello"]
    # The canceled turn gave its place in the conversation up: the next one runs at once.
    llm.push(openai_text("after the cap"))
    started = time.monotonic()
    status, _, body = tenant.invoke("stuck", {"message": "next", "stateful": True, "conversation_id": cid})
    assert status == 200 and body["response"] == "after the cap" and time.monotonic() - started < 1.5


def test_a_canceled_first_call_leaves_no_conversation_and_remembers_nothing(start_server, llm):
    """A first stateful call's conversation and the facts its turn remembered commit with the
    turn: a 504 leaves neither behind (they were written as the turn ran before)."""
    tenant = start(start_server, llm, soft=1, hard=2)
    tenant.agent("mem", memory="shared")
    llm.push(openai_tools([("remember", {"fact": "The customer prefers fax"})]),
             dict(openai_text("too late"), delay=30))
    status, _, body = tenant.invoke("mem", {"message": "remember fax", "stateful": True})
    assert status == 504, body
    assert stores.count_rows(tenant.server.store_url, "conversations") == 0
    assert stores.count_rows(tenant.server.store_url, "memories") == 0
    assert stores.count_rows(tenant.server.store_url, "conversation_calls") == 0
    # The same first call that finishes stores all three.
    llm.push(openai_tools([("remember", {"fact": "The customer prefers fax"})]), openai_text("Noted."))
    status, _, body = tenant.invoke("mem", {"message": "remember fax", "stateful": True})
    assert status == 200 and body["conversation_id"], body
    assert stores.count_rows(tenant.server.store_url, "conversations") == 1
    assert stores.count_rows(tenant.server.store_url, "memories") == 1
    _, _, convo = tenant.conversation(body["conversation_id"])
    assert [m["content"] for m in convo["messages"]] == ["remember fax", "Noted."]


def test_a_canceled_turn_spends_nothing_and_frees_its_reservation_at_once(start_server, llm):
    tenant = start(start_server, llm, soft=1, hard=2)
    tenant.agent("pricey")  # gpt-test is priced: every model call reserves its worst case
    llm.push(dict(openai_text("too late"), delay=30))
    assert tenant.invoke("pricey", {"message": "hangs"})[0] == 504
    deadline = time.monotonic() + 1  # at once: well before the maintenance loop would
    while True:
        _, _, usage = tenant.server.admin("GET", "/orgs/acme/usage")
        if usage["total_reserved_usd"] == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert usage["total_reserved_usd"] == 0, usage
    assert usage["total_spent_usd"] == 0 and all(a["model_calls"] == 0 for a in usage["agents"]), usage


def test_a_turn_whose_commit_outlasts_the_cap_is_answered_by_its_commit(start_server, llm):
    """The cap passes while the turn's commit waits on the store: the commit finishes, and the
    caller gets its 200, never a 504 for a turn that is stored."""
    import stores
    tenant = start(start_server, llm, soft=1, hard=2)
    tenant.agent("chat")
    _, _, first = tenant.invoke("chat", {"message": "hello", "stateful": True})
    cid = first["conversation_id"]
    llm.push(dict(openai_text("stored late"), delay=0.5))
    answers = []
    caller = threading.Thread(target=lambda: answers.append(tenant.invoke(
        "chat", {"message": "slow commit", "stateful": True, "conversation_id": cid})))
    caller.start()
    while not len(llm.requests) >= 2:  # the model call started: its spend is reserved
        time.sleep(0.01)
    with stores.WritesHeld(tenant.server.store_url, 2.5):
        pass
    caller.join(10)
    status, _, body = answers[0]
    assert status == 200 and body["response"] == "stored late", (status, body)
    _, _, convo = tenant.conversation(cid)
    assert [m["content"] for m in convo["messages"]][-2:] == ["slow commit", "stored late"]
