"""Remote A2A agents as tools (docs/a2a.md, "Remote agents as tools"; issue 77 §3), through the
binary: an agent whose config names a remote agent's card calls it as one tool. The remote agent
is built on the official A2A JS SDK's server (tests/counterparts/a2a_remote_agent.mjs, pinned): its
card is read and its skills describe the tool, the call is a SendMessage with the operator's
credential, the completed task's reply is the tool's result, its INPUT_REQUIRED pauses the run with
a question whose answer continues the remote task, a streaming agent's progress reaches the run's
followers (never its text) and a canceled run cancels its remote task, a card whose interface is on
another origin leaves the agent out, and an agentgate agent calls another over A2A."""
import time

import counterparts
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text, openai_tools
from test_openai_api import new_key
from test_runs import cancel_run, follow, wait_status


class RemoteAgent(counterparts.LineReader):
    """a2a_remote_agent.mjs on a free port; `seen` fills with the messages it is sent."""

    def __init__(self, key=None, interface_url=None, streaming=False, piece_ms=None):
        port = counterparts.free_port()
        self.card_url = f"http://127.0.0.1:{port}/.well-known/agent-card.json"
        args = ["--port", str(port)]
        if key:
            args += ["--key", key]
        if interface_url:
            args += ["--interface-url", interface_url]
        if streaming:
            args += ["--streaming", "true"]
        if piece_ms:
            args += ["--piece-ms", str(piece_ms)]
        super().__init__("a2a_remote_agent.mjs", args)


def start(start_server, llm, remote, **tool):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("desk", tools=[{"type": "a2a", "name": "billing", "card_url": remote.card_url, **tool}])
    return tenant


def tool_results(request):
    return [m["content"] for m in request["body"]["messages"] if m["role"] == "tool"]


def offered(request):
    return {t["function"]["name"]: t["function"] for t in request["body"].get("tools", [])}


def test_a_remote_agent_is_one_tool_its_card_describes_and_its_reply_is_the_result(start_server, llm):
    remote = RemoteAgent(key="remote-key")
    try:
        server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
        tenant = Tenant(server)
        status, _, body = server.admin("PUT", "/orgs/acme/secrets/billing_key", {"value": "Bearer remote-key"})
        assert status == 200, body
        tenant.agent("desk", tools=[{"type": "a2a", "name": "billing", "card_url": remote.card_url,
                                     "headers": {"Authorization": {"secret": "billing_key"}}}])
        llm.push(openai_tools([("billing", {"message": "What is the balance of A-1?"})]),
                 openai_text("A-1 holds 12 EUR."))
        status, _, body = tenant.invoke("desk", {"message": "balance of A-1?"})
        assert status == 200 and body["response"] == "A-1 holds 12 EUR.", body
        tool = offered(llm.requests[0])["billing"]
        assert "Reads account balances." in tool["description"], tool
        assert "- balance: The balance of an account" in tool["description"], tool
        assert tool["parameters"]["required"] == ["message"], tool
        assert tool_results(llm.requests[1]) == ["The balance of A-1 is 12.00 EUR."]
        [seen] = remote.wait(1)
        assert seen["text"] == "What is the balance of A-1?" and seen["authorization"] == "Bearer remote-key", seen

        # Another turn reads the card from the cache and sends a new message: a new remote task.
        llm.push(openai_tools([("billing", {"message": "hello"})]), openai_text("It said hello."))
        status, _, body = tenant.invoke("desk", {"message": "say hello to billing"})
        assert status == 200 and body["response"] == "It said hello.", body
        assert tool_results(llm.requests[-1]) == ["Billing heard: hello"]
        first, second = remote.wait(2)
        assert first["task_id"] != second["task_id"]
    finally:
        remote.close()


def test_a_remote_agents_question_pauses_the_run_and_the_answer_continues_its_task(start_server, llm):
    remote = RemoteAgent()
    try:
        tenant = start(start_server, llm, remote)
        llm.push(openai_tools([("billing", {"message": "What is the balance?"})]))
        status, _, paused = tenant.invoke("desk", {"message": "what is my balance?"})
        assert status == 200 and paused["terminated_reason"] == "input_required", paused
        [need] = paused["pending_actions"]
        assert need["kind"] == "question" and need["tool"] == "billing", need
        assert need["question"] == "Which account?" and need["answer_schema"] == {"type": "string"}, need
        headers = {"content-type": "application/json", "fl-api-org": tenant.org, "fl-api-env": "prod",
                   "fl-api-token": tenant.token}
        # The answer is text: an object is refused, naming the field.
        status, _, body = tenant.server.request(
            "POST", f"/api/runs/{paused['run_id']}/approvals",
            {"answers": [{"call_id": need["call_id"], "answer": {"account": "A-7"}}]}, headers, timeout=30)
        assert status == 400 and "answers[0].answer" in body["error"]["message"], body
        llm.push(openai_text("A-7 holds 12 EUR."))
        status, _, done = tenant.server.request(
            "POST", f"/api/runs/{paused['run_id']}/approvals",
            {"answers": [{"call_id": need["call_id"], "answer": "A-7"}]}, headers, timeout=30)
        assert status == 200 and done["response"] == "A-7 holds 12 EUR.", done
        assert tool_results(llm.requests[-1]) == ["The balance of A-7 is 12.00 EUR."]
        asked, answered = remote.wait(2)
        assert answered["text"] == "A-7" and answered["task_id"] == asked["task_id"], (asked, answered)
    finally:
        remote.close()


def test_a_card_whose_interface_is_on_another_origin_is_left_out_and_noted(start_server, llm):
    remote = RemoteAgent(interface_url="http://127.0.0.2:9/rpc")
    try:
        tenant = start(start_server, llm, remote)
        llm.push(openai_text("No billing today."))
        status, headers, body = tenant.invoke("desk", {"message": "balance?"})
        assert status == 200 and body["response"] == "No billing today.", body
        assert "billing" not in offered(llm.requests[-1])
        status, _, turn = tenant.server.admin("GET", f"/orgs/acme/turns/{headers['x-agentgate-turn-id']}")
        assert status == 200, turn
        notes = turn["transcript"]["notes"]
        assert any(n.startswith("a2a agent 'billing' left out:") and "origin" in n for n in notes), notes
        assert remote.seen == []
    finally:
        remote.close()


def test_a_streaming_agents_progress_reaches_the_runs_followers_and_its_whole_reply_the_model(
        start_server, llm):
    remote = RemoteAgent(streaming=True)
    try:
        tenant = start(start_server, llm, remote)
        llm.push(openai_tools([("billing", {"message": "hello"})]), openai_text("Billing answered."))
        status, head, queued = tenant.invoke("desk", {"message": "greet billing", "background": True})
        assert status == 202, queued
        seen = follow(tenant, head["location"] + "/events")
        assert seen["error"] is None, seen
        progress = [e["data"] for e in seen["events"] if e["type"] == "tool.progress"]
        assert progress and all(p["name"] == "billing" for p in progress), seen["events"]
        assert progress[0]["state"] == "working" and progress[-1]["state"] == "completed", progress
        assert progress[-1]["chars"] == 600 and any(0 < p["chars"] < 600 for p in progress), progress
        assert all("text" not in p for p in progress)  # never the remote's text
        [result] = tool_results(llm.requests[-1])
        assert result.startswith("Billing heard: hello") and len(result) == 600, result
        assert seen["events"][-1]["type"] == "run.completed"
    finally:
        remote.close()


def test_an_agent_calls_another_agentgate_agent_over_a2a_and_follows_its_stream(start_server, llm):
    """agentgate on both ends: its own A2A card (which streams) is the remote agent's, so the call
    is a SendStreamingMessage to its own interface, the other agent's turn a task of its own."""
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server)
    tenant.agent("bot", description="Knows the opening hours.")
    key = new_key(tenant)
    assert server.admin("PUT", "/orgs/acme/secrets/bot_key", {"value": f"Bearer {key}"})[0] == 200
    card_url = f"http://{server.host}:{server.port}/a2a/acme/prod/bot/.well-known/agent-card.json"
    tenant.agent("desk", tools=[{"type": "a2a", "name": "hours", "card_url": card_url,
                                 "headers": {"Authorization": {"secret": "bot_key"}}}])
    llm.push(openai_tools([("hours", {"message": "When do you open?"})]),
             dict(openai_text("We open at nine and close at six, every weekday."), piece=8),
             openai_text("The shop opens at nine."))
    status, head, queued = tenant.invoke("desk", {"message": "when does the shop open?", "background": True})
    assert status == 202, queued
    seen = follow(tenant, head["location"] + "/events")
    assert seen["error"] is None and seen["events"][-1]["type"] == "run.completed", seen
    progress = [e["data"] for e in seen["events"] if e["type"] == "tool.progress"]
    assert progress and progress[-1]["state"] == "completed", progress
    assert "Knows the opening hours." in offered(llm.requests[0])["hours"]["description"]
    assert llm.requests[1]["body"]["messages"][-1]["content"] == "When do you open?"
    assert tool_results(llm.requests[2]) == ["We open at nine and close at six, every weekday."]
    # The remote call was a task of the other agent's: a run of its own, listed as its task.
    listed = counterparts.run_script(
        "a2a_client.mjs", ["--url", card_url.replace(".well-known/agent-card.json", ""), "--key", key,
                           "--transport", "JSONRPC", "--call", "list"], {})["result"]
    assert [t["status"]["state"] for page in listed for t in page.get("tasks", [])] == ["TASK_STATE_COMPLETED"]


def test_a_canceled_run_cancels_the_remote_task_it_was_streaming(start_server, llm):
    remote = RemoteAgent(streaming=True, piece_ms=1000)
    try:
        tenant = start(start_server, llm, remote)
        llm.push(openai_tools([("billing", {"message": "hello"})]), openai_text("never read"))
        status, head, queued = tenant.invoke("desk", {"message": "greet billing", "background": True})
        assert status == 202, queued
        [asked] = remote.wait(1)
        time.sleep(0.3)  # its first piece is on its way
        status, _, canceled = cancel_run(tenant, queued["run_id"])
        assert status == 200, canceled
        assert wait_status(tenant, queued["run_id"], {"canceled"})["status"] == "canceled"
        _, told = remote.wait(2)
        assert told == {"canceled": asked["task_id"]}, told
        assert len(llm.requests) == 1  # the model never read the reply
    finally:
        remote.close()
