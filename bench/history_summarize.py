#!/usr/bin/env python3
"""A conversation of N turns under each history strategy, through the real binary.

One agent per strategy (history.max_input_tokens 2000) talks to the project's fake OpenAI provider,
which counts a request's input tokens from its size (4 bytes a token, as providers roughly do) and
answers a summary request with the words in capitals it was given (its "gist"). Turn 1 says
"My code word is PINEAPPLE"; every later turn is ~200 bytes. Prints the model's input tokens of
the turn's own call at turns 10, 100 and N for both strategies, how many summaries were made, the
input tokens of all calls together, and whether the last turn's prompt still carries turn 1's code word. The bench clears the
conversation's 200-calls-in-120-s window between turns (that rule is not what is measured).

    AGENTGATE_BINARY=build-release/agentgate python3 bench/history_summarize.py [N=1000]
"""
import os
import pathlib
import shutil
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parent.parent
os.environ["AGENTGATE_BINARY"] = str(pathlib.Path(
    os.environ.get("AGENTGATE_BINARY", root / "build-release/agentgate")).resolve())
sys.path[:0] = [str(root / "tests/e2e"), str(root / "tests")]

import stores  # noqa: E402
from conftest import Agentgate  # noqa: E402
from daemon_harness import API_KEY, Tenant, config_for  # noqa: E402
from fakes.fake_llm import FakeLlm  # noqa: E402
from test_history import PADDING, gist_model, is_summary  # noqa: E402

turns = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
marks = sorted({10, 100, turns})


def input_tokens(body):
    return len("".join(m.get("content") or "" for m in body["messages"])) // 4


def run(strategy):
    llm = FakeLlm()
    llm.default_reply = gist_model()
    work = pathlib.Path(tempfile.mkdtemp())
    server = Agentgate(work, config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    try:
        tenant = Tenant(server)
        tenant.agent("bot", model_settings={"max_output_tokens": 256},
                     history={"strategy": strategy, "max_input_tokens": 2000})
        seen, conversation = {}, None
        for turn in range(1, turns + 1):
            message = ("My code word is PINEAPPLE." if turn == 1 else f"Turn {turn}.") + PADDING
            body = {"message": message, "stateful": True}
            if conversation:
                body["conversation_id"] = conversation
            status, _, answer = tenant.invoke("bot", body)
            assert status == 200, answer
            conversation = answer["conversation_id"]
            if turn % 150 == 0:
                stores.execute(server.store_url, "DELETE FROM conversation_calls")
            if turn in marks:
                own = [r["body"] for r in llm.requests if not is_summary(r["body"])][-1]
                seen[turn] = input_tokens(own)
        last = [r["body"] for r in llm.requests if not is_summary(r["body"])][-1]
        summaries = sum(1 for r in llm.requests if is_summary(r["body"]))
        carries = any("PINEAPPLE" in (m.get("content") or "") for m in last["messages"])
        total = sum(input_tokens(r["body"]) for r in llm.requests)
        return seen, summaries, carries, total
    finally:
        server.stop()
        llm.close()
        shutil.rmtree(work, ignore_errors=True)


print(f"command: AGENTGATE_BINARY={os.environ['AGENTGATE_BINARY']} python3 bench/history_summarize.py {turns}")
for strategy in ("window", "summarize"):
    seen, summaries, carries, total = run(strategy)
    figures = ", ".join(f"turn {t}: {seen[t]}" for t in marks)
    print(f"{strategy:9} input tokens per turn ({figures}); {summaries} summaries made; "
          f"{total} input tokens in all, summaries included; turn {turns}'s prompt "
          f"{'carries' if carries else 'has lost'} turn 1's code word")
