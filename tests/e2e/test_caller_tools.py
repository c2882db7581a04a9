"""The caller's own functions on /v1 (issue 76 §1), through the real `openai` SDK: a call of one
ends the turn with `tool_calls` for the caller to run, plain and streamed; the SDK's own tool loop
(`runTools`) resends the history with the results and gets the model's answer; bad tools are 400s
naming the field."""
import json

import pytest

from fakes.fake_llm import openai_text, openai_tools
from test_openai_api import new_key, sdk, start, two_servers

WEATHER = {"type": "function", "function": {
    "name": "weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                   "additionalProperties": False}}}
ASK = [{"role": "user", "content": "Weather in Paris?"}]


def offered(request):
    return [t["function"]["name"] for t in request["body"].get("tools", [])]


def test_a_call_of_the_callers_function_ends_the_turn_with_it(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_tools([("weather", {"city": "Paris"})], text="Let me look."))
    out = sdk(tenant, key, "chat", model="bot", messages=ASK, tools=[WEATHER])
    choice = out["result"]["choices"][0]
    assert choice["finish_reason"] == "tool_calls", choice
    assert choice["message"]["content"] == "Let me look."
    [call] = choice["message"]["tool_calls"]
    assert call["type"] == "function" and call["function"]["name"] == "weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    assert call["id"]
    # The model was offered the caller's function beside the agent's own, and called once.
    assert "weather" in offered(llm.requests[-1]) and len(llm.requests) == 1
    # tool_choice "none": nothing of the caller's is offered.
    llm.push(openai_text("No tools today."))
    out = sdk(tenant, key, "chat", model="bot", messages=ASK, tools=[WEATHER], tool_choice=json.dumps("none"))
    assert out["result"]["choices"][0]["finish_reason"] == "stop"
    assert "weather" not in offered(llm.requests[-1])
    # A named function is asked of the model as OpenAI's tool_choice.
    llm.push(openai_tools([("weather", {"city": "Paris"})]))
    named = {"type": "function", "function": {"name": "weather"}}
    out = sdk(tenant, key, "chat", model="bot", messages=ASK, tools=[WEATHER], tool_choice=named)
    assert llm.requests[-1]["body"]["tool_choice"] == named
    assert out["result"]["choices"][0]["message"]["content"] is None


def test_the_sdks_own_tool_loop_runs_the_function_and_gets_the_answer(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    for stream in ("false", "true"):
        llm.push(openai_tools([("weather", {"city": "Paris"})]), openai_text("Sunny in Paris today."))
        out = sdk(tenant, key, "run-tools", model="bot", messages=ASK, stream=stream)
        result = out["result"]
        assert result["content"] == "Sunny in Paris today.", (stream, result)
        assert result["called"] == ["Paris"], stream
        # The continuation carried the call and its result to the model, with no new user message.
        sent = [m for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
        assert [m["role"] for m in sent] == ["user", "assistant", "tool"], sent
        assert sent[1]["tool_calls"][0]["function"]["name"] == "weather"
        assert sent[2]["content"] == "sunny in Paris"
        assert sent[2]["tool_call_id"] == sent[1]["tool_calls"][0]["id"]


def test_a_streamed_call_of_the_callers_function_comes_whole_at_the_end(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_tools([("weather", {"city": "Paris"}), ("weather", {"city": "Rome"})]))
    out = sdk(tenant, key, "stream", model="bot", messages=ASK, tools=[WEATHER])
    chunks = out["result"]["chunks"]
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    calls = [d["tool_calls"] for d in deltas if d.get("tool_calls")]
    assert len(calls) == 1, deltas  # once, whole
    assert [c["function"]["name"] for c in calls[0]] == ["weather", "weather"]
    assert [json.loads(c["function"]["arguments"])["city"] for c in calls[0]] == ["Paris", "Rome"]
    assert [c["index"] for c in calls[0]] == [0, 1]
    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert finishes == ["tool_calls"], chunks


def test_a_stored_chat_conversation_keeps_the_calls_and_results_of_the_sdks_tool_loop(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    # A conversation begun by a stateful invoke, continued on chat with metadata.conversation_id.
    llm.push(openai_text("Hello."))
    status, _, first = tenant.invoke("bot", {"message": "Hi", "stateful": True})
    assert status == 200, first
    metadata = json.dumps({"conversation_id": first["conversation_id"]})
    llm.push(openai_tools([("weather", {"city": "Paris"})]), openai_text("Sunny in Paris today."))
    out = sdk(tenant, key, "run-tools", model="bot", messages=ASK, metadata=metadata)
    assert "result" in out, out
    assert out["result"]["content"] == "Sunny in Paris today.", out
    assert out["result"]["called"] == ["Paris"]
    # The continuation was the stored call and the SDK's result, with no new user message.
    sent = [m for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant", "tool"], sent
    assert sent[4]["content"] == "sunny in Paris"
    # A later turn of the conversation reads them back from the store, before its own message.
    llm.push(openai_text("Still sunny."))
    later = [{"role": "user", "content": "And tomorrow?"}]
    out = sdk(tenant, key, "chat", model="bot", messages=later, metadata=metadata)
    assert out["result"]["choices"][0]["message"]["content"] == "Still sunny.", out
    sent = [m for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant", "tool", "assistant",
                                         "user"], sent
    # A result for a call the conversation does not wait on is a 400 naming it.
    call = {"id": "call_9", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
    stray = ASK + [{"role": "assistant", "content": None, "tool_calls": [call]},
                   {"role": "tool", "tool_call_id": "call_9", "content": "x"}]
    out = sdk(tenant, key, "chat", model="bot", messages=stray, tools=[WEATHER], metadata=metadata)
    assert out["error"]["status"] == 400 and out["error"]["param"] == "messages[2].tool_call_id", out


def test_bad_tools_and_continuations_are_400s_naming_the_field(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("desk", actions=[{"name": "weather", "description": "The agent's own"}])
    key = new_key(tenant, agents=("bot", "desk"))

    def refused(model, messages, **fields):
        out = sdk(tenant, key, "chat", model=model, messages=messages, **fields)
        assert "error" in out and out["error"]["status"] == 400, out
        return out["error"]["param"] if "param" in out["error"] else out["error"]

    asked = len(llm.requests)
    assert refused("desk", ASK, tools=[WEATHER]) == "tools[0].function.name"
    assert refused("bot", ASK, tools=[{"type": "function", "function": {"name": "bad name"}}]) == \
        "tools[0].function.name"
    assert refused("bot", ASK, tools=[WEATHER], tool_choice={"type": "function", "function": {"name": "x"}}) == \
        "tool_choice.function.name"
    call = {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
    assert refused("bot", ASK + [{"role": "assistant", "content": None, "tool_calls": [call]}],
                   tools=[WEATHER]) == "messages[1].tool_calls[0]"
    assert refused("bot", ASK + [{"role": "assistant", "content": None, "tool_calls": [call]},
                                 {"role": "tool", "tool_call_id": "call_9", "content": "x"}],
                   tools=[WEATHER]) == "messages[2].tool_call_id"
    assert len(llm.requests) == asked  # no model call for any of them


def test_a_call_whose_arguments_the_safety_policy_blocks_is_never_shown(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("guarded", safety={"block_patterns": ["(?i)internal only"], "placeholder": "Withheld."})
    key = new_key(tenant, agents=("guarded",))
    for call in ("chat", "stream"):
        llm.push(openai_tools([("weather", {"city": "Internal only HQ"})]))
        out = sdk(tenant, key, call, model="guarded", messages=ASK, tools=[WEATHER])
        assert "Internal only" not in json.dumps(out), out
        if call == "chat":
            choice = out["result"]["choices"][0]
            assert choice["finish_reason"] == "content_filter" and choice["message"]["content"] == "Withheld."
            assert "tool_calls" not in choice["message"]
        else:
            finishes = [c["choices"][0]["finish_reason"] for c in out["result"]["chunks"]
                        if c["choices"] and c["choices"][0]["finish_reason"]]
            assert finishes == ["content_filter"], out


def test_langchains_tool_calling_and_the_agents_sdk_on_chat_completions_run_their_tools(
        start_server, llm):
    from test_client_sdks import client
    tenant = start(start_server, llm)
    tenant.agent("desk")
    key = new_key(tenant, agents=("desk",))
    llm.push(openai_tools([("weather", {"city": "Paris"})]), openai_text("Sunny in Paris."))
    out = client(tenant, key, "langchain-tools")
    assert out == {"calls": [["weather", {"city": "Paris"}]], "output": "Sunny in Paris.",
                   "called": ["Paris"]}, out
    sent = [m["role"] for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
    assert sent == ["user", "assistant", "tool"], sent
    llm.push(openai_tools([("weather", {"city": "Paris"})]), openai_text("Sunny in Paris."))
    out = client(tenant, key, "agents-tool", api="chat_completions")
    assert out == {"output": "Sunny in Paris.", "called": ["Paris"]}, out


FLAT_WEATHER = {"type": "function", "name": "weather", "description": "The weather in a city",
                "parameters": WEATHER["function"]["parameters"]}


def function_calls(response):
    return [i for i in response["output"] if i["type"] == "function_call"]


@pytest.mark.both_stores
def test_a_response_that_calls_the_callers_function_is_continued_by_its_output(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    for store in ("true", "false"):
        llm.push(openai_tools([("weather", {"city": "Paris"})], text="Looking."))
        first = sdk(tenant, key, "response", model="bot", input="Weather in Paris?", tools=[FLAT_WEATHER],
                    store=store)["result"]
        assert first["status"] == "completed", first
        [call] = function_calls(first)
        assert call["id"].startswith("fc_") and call["name"] == "weather" and call["call_id"]
        assert json.loads(call["arguments"]) == {"city": "Paris"}
        assert first["output_text"] == "Looking."
        output = {"type": "function_call_output", "call_id": call["call_id"], "output": "sunny"}
        llm.push(openai_text("Sunny in Paris."))
        if store == "true":
            # The stored response is continued by the output alone.
            second = sdk(tenant, key, "response", model="bot", input=[output], tools=[FLAT_WEATHER],
                         previous=first["id"])["result"]
        else:
            # Stateless: the history resent, the call with it.
            resent = [{"role": "user", "content": "Weather in Paris?"},
                      {"type": "function_call", "call_id": call["call_id"], "name": "weather",
                       "arguments": call["arguments"]}, output]
            second = sdk(tenant, key, "response", model="bot", input=resent, tools=[FLAT_WEATHER],
                         store="false")["result"]
        assert second["output_text"] == "Sunny in Paris.", (store, second)
        sent = [m for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
        assert [m["role"] for m in sent] == ["user", "assistant", "tool"], (store, sent)
        assert sent[1]["tool_calls"][0]["id"] == call["call_id"]
        assert sent[2] == {"role": "tool", "tool_call_id": call["call_id"], "content": "sunny"}, sent
        if store == "true":
            # Read back as answered: the call is the first's output, its result the second's input.
            again = sdk(tenant, key, "retrieve", id=first["id"])["result"]
            assert function_calls(again) == [call], again
            items = sdk(tenant, key, "input-items", id=second["id"])["result"]["items"]
            assert [(i["type"], i.get("call_id"), i.get("output")) for i in items] == \
                [("function_call_output", call["call_id"], "sunny")], items


def test_a_streamed_response_sends_the_call_whole(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_tools([("weather", {"city": "Paris"})]))
    out = sdk(tenant, key, "response-stream", model="bot", input="Weather in Paris?", tools=[FLAT_WEATHER])
    assert "error" not in out, out
    events = out["result"]["events"]
    deltas = [e for e in events if e["type"] == "response.function_call_arguments.delta"]
    assert len(deltas) == 1 and json.loads(deltas[0]["delta"]) == {"city": "Paris"}, events
    [call] = function_calls(out["result"]["final"])
    assert call["name"] == "weather" and json.loads(call["arguments"]) == {"city": "Paris"}


def test_an_unanswered_call_or_an_unknown_output_is_a_400(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_tools([("weather", {"city": "Paris"})]))
    first = sdk(tenant, key, "response", model="bot", input="Weather in Paris?", tools=[FLAT_WEATHER])["result"]
    asked = len(llm.requests)
    unknown = {"type": "function_call_output", "call_id": "call_nope", "output": "x"}
    out = sdk(tenant, key, "response", model="bot", input=[unknown], previous=first["id"])
    assert out["error"]["status"] == 400 and out["error"]["param"] == "input[0].call_id", out
    out = sdk(tenant, key, "response", model="bot", input="And Rome?", previous=first["id"])
    assert out["error"]["status"] == 400 and out["error"]["param"] == "input", out
    assert len(llm.requests) == asked


@pytest.mark.both_stores
def test_the_agents_sdks_function_tool_on_its_default_loop_and_with_previous_response_id(
        start_server, llm):
    from test_client_sdks import client
    tenant = start(start_server, llm)
    tenant.agent("desk")
    key = new_key(tenant, agents=("desk",))
    llm.push(openai_tools([("weather", {"city": "Paris"})]), openai_text("Sunny in Paris."))
    out = client(tenant, key, "agents-tool")
    assert out == {"output": "Sunny in Paris.", "called": ["Paris"]}, out
    sent = [m["role"] for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
    assert sent == ["user", "assistant", "tool"], sent
    llm.push(openai_text("Hello."), openai_tools([("weather", {"city": "Paris"})]), openai_text("Sunny."))
    out = client(tenant, key, "agents-tool", previous="true")
    assert out == {"output": "Sunny.", "called": ["Paris"]}, out
    sent = [m["role"] for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
    assert sent == ["user", "assistant", "user", "assistant", "tool"], sent
    # A conversation the server keeps: each step sends only what is new.
    llm.push(openai_tools([("weather", {"city": "Paris"})]), openai_text("Sunny."))
    out = client(tenant, key, "agents-tool", conversation="true")
    assert out == {"output": "Sunny.", "called": ["Paris"]}, out
    sent = [m["role"] for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
    assert sent == ["user", "assistant", "tool"], sent


@pytest.mark.postgres
def test_a_response_calling_the_callers_function_is_continued_on_another_server(start_server, llm):
    tenant, other, key = two_servers(start_server, llm)
    llm.push(openai_tools([("weather", {"city": "Paris"})]))
    first = sdk(tenant, key, "response", model="bot", input="Weather in Paris?", tools=[FLAT_WEATHER])["result"]
    [call] = function_calls(first)
    llm.push(openai_text("Sunny in Paris."))
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": "sunny"}
    second = sdk(other, key, "response", model="bot", input=[output], previous=first["id"])["result"]
    assert second["output_text"] == "Sunny in Paris.", second
    sent = [m["role"] for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
    assert sent == ["user", "assistant", "tool"], sent


def test_a_run_that_pauses_goes_on_without_the_callers_functions(start_server, llm):
    from fakes.fake_llm import FakeToolServer
    from test_approvals import approver, decide, shop
    tools = FakeToolServer()
    try:
        tenant = start(start_server, llm)
        shop(tenant, tools)
        key = new_key(tenant, agents=("shop",))
        llm.push(openai_tools([("refund", {"order": "A-1"})]))
        out = sdk(tenant, key, "chat", model="shop", messages=ASK, tools=[WEATHER])
        paused = out["result"]["agentgate"]
        assert paused["terminated_reason"] == "approval_required", out
        assert "weather" in offered(llm.requests[-1])
        llm.push(openai_text("Refunded."))
        status, _, done = decide(tenant, approver(tenant), paused["run_id"], [{"call_id": "call_0", "approve": True}])
        assert status == 200 and done["response"] == "Refunded.", done
        assert "weather" not in offered(llm.requests[-1])  # that caller is no longer in the loop
    finally:
        tools.close()


@pytest.mark.both_stores
def test_a_background_response_calls_the_callers_function_and_its_output_goes_on_in_the_background(
        start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    llm.push(openai_tools([("weather", {"city": "Paris"})]))
    first = sdk(tenant, key, "background", model="bot", input="Weather in Paris?", tools=[FLAT_WEATHER])["result"]
    assert first["final"]["status"] == "completed", first
    [call] = function_calls(first["final"])
    assert "weather" in offered(llm.requests[-1])  # the queued run kept the caller's function
    llm.push(openai_text("Sunny in Paris."))
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": "sunny"}
    second = sdk(tenant, key, "background", model="bot", input=[output], tools=[FLAT_WEATHER],
                 previous=first["final"]["id"])["result"]
    assert second["final"]["output_text"] == "Sunny in Paris.", second
    sent = [m["role"] for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]
    assert sent == ["user", "assistant", "tool"], sent
