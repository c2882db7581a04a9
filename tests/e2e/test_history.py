"""Long conversations (history strategies): with `summarize`, turns that no longer fit the input
budget are folded into a running summary by the agent's own model; the summary is a metered model
call, shown in the turn's transcript, and a failed one never fails the turn. Runs on both stores."""
import re

import pytest

from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_error, openai_text

SUMMARY_MARKER = "You keep the running summary of a conversation"
PADDING = " and some ordinary words to fill the budget" * 4  # about 170 bytes


pytestmark = pytest.mark.both_stores  # what the store itself decides (conftest.py)


@pytest.fixture
def daemon(llm, start_server):
    llm.reset()
    yield Tenant(start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY}))
    llm.__dict__.pop("default_reply", None)


def is_summary(body):
    return SUMMARY_MARKER in body["messages"][0]["content"]


def gist_model(fail_summaries=False):
    """A stand-in for a real model: a summary keeps the words in capitals (the gist); a turn
    echoes. Input tokens are counted from the request's size, as a provider would."""

    def reply(path, body):
        text = "".join(m.get("content") or "" for m in body["messages"])
        tokens = len(text) // 4
        if is_summary(body):
            if fail_summaries:
                return openai_error(500, "server_error", "summarizer down")
            return openai_text("Gist: " + " ".join(sorted(set(re.findall(r"\b[A-Z]{5,}\b", text)))),
                               input_tokens=tokens, output_tokens=7)
        return openai_text("ok", input_tokens=tokens, output_tokens=1)

    return reply


def agent(daemon, agent_id, strategy):
    daemon.agent(agent_id, model_settings={"max_output_tokens": 64},
                 history={"strategy": strategy, "max_input_tokens": 400})


def converse(daemon, agent_id, turns):
    status, headers, body = daemon.invoke(agent_id, {"message": "My code word is PINEAPPLE." + PADDING,
                                                     "stateful": True})
    assert status == 200, body
    conversation = body["conversation_id"]
    answers = [(headers, body)]
    for i in range(turns - 1):
        status, headers, body = daemon.invoke(agent_id, {"message": f"Turn {i}." + PADDING, "stateful": True,
                                                         "conversation_id": conversation})
        assert status == 200, body
        answers.append((headers, body))
    return conversation, answers


def turn_requests(llm):
    return [r["body"] for r in llm.requests if not is_summary(r["body"])]


def test_summarize_folds_old_turns_into_a_summary_the_model_then_sees(daemon, llm):
    llm.default_reply = gist_model()
    agent(daemon, "long", "summarize")
    conversation, answers = converse(daemon, "long", 12)
    summaries = [r["body"] for r in llm.requests if is_summary(r["body"])]
    assert summaries, "the budget was passed: a summary was made"
    assert "PINEAPPLE" in summaries[0]["messages"][1]["content"]  # turn 1 was folded
    assert not summaries[0].get("tools")
    last = turn_requests(llm)[-1]
    assert "PINEAPPLE" in last["messages"][0]["content"]  # the summary, in the system prompt
    assert all("PINEAPPLE" not in m["content"] for m in last["messages"][1:])  # turn 1 itself is gone
    # The turn that summarized counts the summary's call, tokens and cost.
    summarizing = [(h, b) for h, b in answers if b["usage"]["model_calls"] == 2]
    assert summarizing
    headers, body = summarizing[0]
    status, _, turn = daemon.server.admin("GET", f"/orgs/acme/turns/{headers['x-agentgate-turn-id']}")
    point = turn["transcript"]["history_summary"]
    assert point["text"].startswith("Gist:") and "PINEAPPLE" in point["text"]
    assert point["through_seq"] >= 2 and point["messages_folded"] >= 2
    assert turn["model_calls"] == 2 and turn["input_tokens"] == body["usage"]["input_tokens"]
    assert body["usage"]["input_tokens"] == point["model_call"]["input_tokens"] + turn["transcript"][
        "model_calls"][0]["input_tokens"]
    assert body["usage"]["cost_usd"] == pytest.approx(
        (body["usage"]["input_tokens"] * 1000 + body["usage"]["output_tokens"] * 2000) / 1e6)
    usage = daemon.settled_usage()
    assert usage["total_spent_usd"] == pytest.approx(sum(b["usage"]["cost_usd"] for _, b in answers))
    # Nothing is deleted: the whole history stays in the conversation.
    status, _, stored = daemon.conversation(conversation)
    assert status == 200 and len(stored["messages"]) == 24
    assert stored["messages"][0]["content"].startswith("My code word is PINEAPPLE")


def test_window_forgets_the_first_turn_where_summarize_keeps_its_gist(daemon, llm):
    llm.default_reply = gist_model()
    agent(daemon, "short", "window")
    converse(daemon, "short", 12)
    assert not any(is_summary(r["body"]) for r in llm.requests)
    last = turn_requests(llm)[-1]
    assert all("PINEAPPLE" not in m["content"] for m in last["messages"])


def test_a_failed_summary_never_fails_the_turn(daemon, llm):
    llm.default_reply = gist_model(fail_summaries=True)
    agent(daemon, "flaky", "summarize")
    conversation, answers = converse(daemon, "flaky", 8)  # every turn answered 200
    assert any(is_summary(r["body"]) for r in llm.requests)
    headers, body = next((h, b) for h, b in answers if b["usage"]["model_calls"] == 2)
    status, _, turn = daemon.server.admin("GET", f"/orgs/acme/turns/{headers['x-agentgate-turn-id']}")
    point = turn["transcript"]["history_summary"]
    assert "summarizer down" in point["skipped"] and "text" not in point
    # The window applied: the prompt still fits, without a summary.
    last = turn_requests(llm)[-1]
    assert "Summary of the earlier conversation" not in last["messages"][0]["content"]
    assert all("PINEAPPLE" not in m["content"] for m in last["messages"])


def test_no_summary_is_made_when_the_spend_limit_leaves_no_budget(daemon, llm):
    llm.default_reply = gist_model()
    agent(daemon, "capped", "summarize")
    conversation, answers = converse(daemon, "capped", 6)
    before = len(llm.requests)
    # The org may not spend more: the summary is not made, and the turn is refused as any other.
    daemon.server.admin("PATCH", "/orgs/acme", {"monthly_spend_limit_usd": 0})
    status, _, body = daemon.invoke("capped", {"message": "Again." + PADDING, "stateful": True,
                                               "conversation_id": conversation})
    assert status == 402, body
    assert len(llm.requests) == before


def test_a_chat_completions_history_is_summarized_for_that_call_and_kept_nowhere(daemon, llm):
    """docs/openai.md: a stateless call brings its history; what does not fit a summarize agent's
    budget is summarized for the call alone (there is no conversation to keep the summary in)."""
    llm.default_reply = gist_model()
    agent(daemon, "long", "summarize")
    messages = [{"role": "user", "content": "My code word is PINEAPPLE." + PADDING}]
    for i in range(11):
        messages += [{"role": "assistant", "content": "ok"},
                     {"role": "user", "content": f"Turn {i}." + PADDING}]
    status, _, body = daemon.server.request(
        "POST", "/v1/chat/completions", {"model": "long", "messages": messages},
        {"content-type": "application/json", "fl-api-org": daemon.org, "fl-api-env": "prod",
         "fl-api-token": daemon.token})
    assert status == 200, body
    assert body["agentgate"]["usage"]["model_calls"] == 2  # the summary's call and the turn's
    summaries = [r["body"] for r in llm.requests if is_summary(r["body"])]
    assert len(summaries) == 1 and "PINEAPPLE" in summaries[0]["messages"][1]["content"]
    last = turn_requests(llm)[-1]
    assert "PINEAPPLE" in last["messages"][0]["content"]  # the gist, in the system prompt
    assert last["messages"][-1]["content"].startswith("Turn 10.")
    _, _, listed = daemon.server.admin("GET", f"/orgs/{daemon.org}/conversations")
    assert listed["conversations"] == [], listed
