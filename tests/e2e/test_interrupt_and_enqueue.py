"""A call that interrupts a busy conversation, and a background run that queues behind it
(docs/daemon.md, "When a conversation is busy"): "if_busy": "interrupt" ends every turn ahead of
it superseded (409 superseded, nothing stored) and runs next; a background run's "enqueue" takes
its place in line as it is queued and runs once the turns ahead of it end, in arrival order; on one
server and across servers sharing a PostgreSQL store."""
import re
import time

import pytest

from conftest import error_of
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text
from test_busy_conversation import conversation_of, in_background, tenant, wait_for_requests  # noqa: F401 (a fixture)
from test_approvals import pause_a_refund, shop, tools  # noqa: F401 (a fixture)
from test_approvals import start as start_with_tools
from test_runs import follow, get_run, headers, wait_for, wait_status


ENDED = {"completed", "failed", "canceled"}


def turn(conversation, message, **fields):
    return {"message": message, "stateful": True, "conversation_id": conversation, **fields}


def stored_messages(tenant, conversation):
    status, _, stored = tenant.conversation(conversation)
    assert status == 200, stored
    return [m["content"] for m in stored["messages"]]


def turns_in_flight(tenant):
    text = tenant.server.request("GET", "/metrics")[2]
    return float(re.search(r"^agentgate_turns_in_flight (\S+)$", text, re.M).group(1))


def assert_run_superseded(tenant, run_id):
    """The run ended as a canceled one, named apart from a cancel and from its server's death."""
    run = wait_status(tenant, run_id, ENDED)
    assert run["status"] == "canceled" and run["error"]["code"] == "superseded", run


def assert_superseded(result):
    status, _, body = result
    assert status == 409 and error_of(body)["code"] == "superseded", body
    assert "interrupt" in error_of(body)["message"]


def test_interrupt_ends_the_running_turn_unstored_and_answers_in_its_place(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("Never stored."), "delay": 30}, openai_text("Answered instead."))
    running = in_background(lambda: tenant.invoke("bot", turn(conversation, "slow question")))
    wait_for_requests(llm, 2)  # the running turn's model call is out
    status, _, body = tenant.invoke("bot", turn(conversation, "new question", if_busy="interrupt"))
    assert status == 200 and body["response"] == "Answered instead.", body
    running["thread"].join(10)
    assert_superseded(running["result"])
    wait_for(lambda: llm.disconnects == 1)  # its provider call was canceled with it
    # The interrupted turn's message and reply never reach the history, nor the next prompt.
    sent = [m["content"] for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
    assert sent == ["start", "Hello.", "new question"]
    assert stored_messages(tenant, conversation) == ["start", "Hello.", "new question", "Answered instead."]
    usage = tenant.settled_usage()
    assert usage["total_reserved_usd"] == 0
    # On a free conversation an interrupt is a plain call.
    llm.push(openai_text("Calm."))
    status, _, body = tenant.invoke("bot", turn(conversation, "again", if_busy="interrupt"))
    assert status == 200 and body["response"] == "Calm.", body


def test_interrupt_supersedes_the_calls_waiting_ahead_of_it_too(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("Running."), "delay": 30}, openai_text("Last word."))
    running = in_background(lambda: tenant.invoke("bot", turn(conversation, "first")))
    wait_for_requests(llm, 2)
    waiting = in_background(lambda: tenant.invoke("bot", turn(conversation, "second")))
    wait_for(lambda: turns_in_flight(tenant) == 2)
    time.sleep(0.3)  # past its admission: the second call is in line behind the first
    status, _, body = tenant.invoke("bot", turn(conversation, "third", if_busy="interrupt"))
    assert status == 200 and body["response"] == "Last word.", body
    for call in (running, waiting):
        call["thread"].join(10)
        assert_superseded(call["result"])
    assert len(llm.requests) == 3  # the waiting call never called the model
    assert stored_messages(tenant, conversation) == ["start", "Hello.", "third", "Last word."]


def test_an_interrupt_with_the_running_calls_own_key_interrupts_nothing(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("Kept."), "delay": 1.0})
    key = {"idempotency-key": "order-42"}
    running = in_background(lambda: tenant.invoke("bot", turn(conversation, "slow"), headers=key))
    wait_for_requests(llm, 2)
    status, _, body = tenant.invoke("bot", turn(conversation, "slow", if_busy="interrupt"), headers=key)
    assert status == 409 and error_of(body)["code"] == "idempotency_key_in_use", body
    running["thread"].join(10)
    assert running["result"][0] == 200 and running["result"][2]["response"] == "Kept."
    assert stored_messages(tenant, conversation)[-2:] == ["slow", "Kept."]


def test_a_streamed_turn_interrupts_and_is_interrupted_as_a_canceled_run(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("Never stored."), "delay": 30}, openai_text("Streamed instead."))
    running = in_background(lambda: tenant.invoke("bot", turn(conversation, "slow")))
    wait_for_requests(llm, 2)
    events = follow(tenant, "/api/agents/bot/invoke", body=turn(conversation, "now", if_busy="interrupt"))["events"]
    assert events[-1]["type"] == "run.completed" and events[-1]["data"]["response"] == "Streamed instead."
    running["thread"].join(10)
    assert_superseded(running["result"])
    # A streamed turn interrupted: its run ends canceled, its error superseded (not its server's death).
    llm.push({**openai_text("Cut."), "delay": 30}, openai_text("Plain instead."))
    streamed = in_background(lambda: follow(tenant, "/api/agents/bot/invoke", body=turn(conversation, "stream me")))
    wait_for_requests(llm, 4)
    status, _, body = tenant.invoke("bot", turn(conversation, "plain", if_busy="interrupt"))
    assert status == 200 and body["response"] == "Plain instead.", body
    streamed["thread"].join(20)
    last = streamed["result"]["events"][-1]
    assert last["type"] == "run.failed" and last["data"]["code"] == "superseded", last
    assert_run_superseded(tenant, streamed["result"]["events"][0]["data"]["run_id"])
    assert stored_messages(tenant, conversation) == ["start", "Hello.", "now", "Streamed instead.", "plain",
                                                     "Plain instead."]


def test_background_runs_enqueue_behind_the_running_turn_in_arrival_order(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("Running."), "delay": 1.0}, openai_text("One."), openai_text("Two."),
             openai_text("Three."))
    running = in_background(lambda: tenant.invoke("bot", turn(conversation, "first")))
    wait_for_requests(llm, 2)
    runs = []
    for message in ("queued one", "queued two"):
        status, _, queued = tenant.invoke("bot", turn(conversation, message, background=True, if_busy="enqueue"))
        assert status == 202 and queued["status"] == "queued", queued
        runs.append(queued["run_id"])
    # A call arriving after them waits behind them too.
    status, _, after = tenant.invoke("bot", turn(conversation, "plain after"))
    assert status == 200 and after["response"] == "Three.", after
    running["thread"].join(10)
    assert running["result"][0] == 200
    for run_id, reply in zip(runs, ("One.", "Two.")):
        run = wait_status(tenant, run_id, ENDED)
        assert run["status"] == "completed" and run["result"]["response"] == reply, run
    assert stored_messages(tenant, conversation) == ["start", "Hello.", "first", "Running.", "queued one", "One.",
                                                     "queued two", "Two.", "plain after", "Three."]
    # A rejecting background run is refused while one is queued or running; enqueue is for runs only.
    status, _, body = tenant.invoke("bot", turn(conversation, "x", if_busy="enqueue"))
    assert status == 400 and "'if_busy'" in error_of(body)["message"], body


def test_a_background_interrupt_supersedes_the_running_turn_and_queued_runs(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("Never stored."), "delay": 30}, openai_text("Run answer."))
    running = in_background(lambda: tenant.invoke("bot", turn(conversation, "slow")))
    wait_for_requests(llm, 2)
    _, _, queued = tenant.invoke("bot", turn(conversation, "queued", background=True, if_busy="enqueue"))
    status, _, interrupting = tenant.invoke("bot", turn(conversation, "takes over", background=True,
                                                         if_busy="interrupt"))
    assert status == 202, interrupting
    running["thread"].join(10)
    assert_superseded(running["result"])
    assert_run_superseded(tenant, queued["run_id"])
    run = wait_status(tenant, interrupting["run_id"], ENDED)
    assert run["status"] == "completed" and run["result"]["response"] == "Run answer.", run
    assert stored_messages(tenant, conversation) == ["start", "Hello.", "takes over", "Run answer."]


def test_a_running_background_run_is_interrupted_as_a_canceled_run(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("Never stored."), "delay": 30}, openai_text("Instead."))
    status, _, queued = tenant.invoke("bot", turn(conversation, "in the background", background=True))
    assert status == 202, queued
    wait_for_requests(llm, 2)  # it runs, holding the place it took as it was queued
    status, _, body = tenant.invoke("bot", turn(conversation, "now", if_busy="interrupt"))
    assert status == 200 and body["response"] == "Instead.", body
    assert_run_superseded(tenant, queued["run_id"])
    assert stored_messages(tenant, conversation) == ["start", "Hello.", "now", "Instead."]


def test_the_flow_action_interrupts_and_names_its_field_for_a_bad_mode(tenant, llm):
    conversation = conversation_of(tenant, llm)
    llm.push({**openai_text("Never stored."), "delay": 30}, openai_text("Flow answer."))
    running = in_background(lambda: tenant.invoke("bot", turn(conversation, "slow")))
    wait_for_requests(llm, 2)
    flow = {"agentExternalId": "bot", "message": "from flow", "stateful": True, "conversationId": conversation,
            "ifBusy": "interrupt"}
    status, _, body = tenant.server.request("POST", "/api/flow-actions/invoke-agent", flow, headers(tenant))
    assert status == 200 and body["response"] == "Flow answer.", body
    running["thread"].join(10)
    assert_superseded(running["result"])
    status, _, body = tenant.server.request("POST", "/api/flow-actions/invoke-agent", {**flow, "ifBusy": "enqueue"},
                                            headers(tenant))
    assert status == 400 and "ifBusy" in body["message"], body


def test_a_paused_run_leaves_its_conversation_free_for_every_mode(start_server, llm, tools):
    llm.reset()
    tenant = start_with_tools(start_server, llm)
    shop(tenant, tools)
    paused = pause_a_refund(tenant, llm, {"message": "refund A-1", "stateful": True})
    assert paused["terminated_reason"] == "approval_required", paused
    conversation = paused["conversation_id"]
    llm.push(openai_text("Free."), openai_text("Still free."))
    status, _, body = tenant.invoke("shop", turn(conversation, "meanwhile", if_busy="reject"))
    assert status == 200 and body["response"] == "Free.", body
    status, _, body = tenant.invoke("shop", turn(conversation, "and now", if_busy="interrupt"))
    assert status == 200 and body["response"] == "Still free.", body
    _, _, run = get_run(tenant, paused["run_id"])
    assert run["status"] == "requires_action", run  # an interrupt supersedes turns, not a pause


@pytest.mark.postgres
def test_interrupt_and_enqueue_across_two_servers(start_server, llm):
    llm.reset()
    first = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    second = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY, "AGENTGATE_STORE_URL": first.store_url})
    tenant = Tenant(first)
    tenant.agent("bot")
    elsewhere = tenant.via(second)
    conversation = conversation_of(tenant, llm)
    # A turn running on the first server, interrupted from the second.
    llm.push({**openai_text("Never stored."), "delay": 30}, openai_text("From the second."))
    running = in_background(lambda: tenant.invoke("bot", turn(conversation, "slow")))
    wait_for_requests(llm, 2)
    status, _, body = elsewhere.invoke("bot", turn(conversation, "interrupt", if_busy="interrupt"))
    assert status == 200 and body["response"] == "From the second.", body
    running["thread"].join(10)
    assert_superseded(running["result"])
    # Runs enqueued through both servers behind a turn running on the second run in arrival order.
    llm.push({**openai_text("Running."), "delay": 1.0}, openai_text("A."), openai_text("B."), openai_text("C."))
    running = in_background(lambda: elsewhere.invoke("bot", turn(conversation, "busy")))
    wait_for_requests(llm, 4)
    runs = []
    for via, message in ((tenant, "run a"), (elsewhere, "run b"), (tenant, "run c")):
        status, _, queued = via.invoke("bot", turn(conversation, message, background=True, if_busy="enqueue"))
        assert status == 202, queued
        runs.append(queued["run_id"])
    running["thread"].join(10)
    for run_id in runs:
        assert wait_status(tenant, run_id, ENDED)["status"] == "completed"
    assert stored_messages(tenant, conversation)[2:] == ["interrupt", "From the second.", "busy", "Running.",
                                                         "run a", "A.", "run b", "B.", "run c", "C."]
