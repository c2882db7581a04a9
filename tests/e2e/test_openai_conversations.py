"""The Conversations API (docs/openai.md, "Conversations"; issue 74 §4), through the binary, spoken
to by the official `openai` SDK (tests/counterparts, pinned): a conversation created with its first
items, continued by responses that name it, its items listed page by page by the SDK's own
pagination, added, read and deleted; its metadata replaced; a conversation busy with a turn refuses
new items; another environment's or another agent's conversation is not this key's to use; and on
PostgreSQL a conversation made on one server is continued on the other."""
import time

import pytest

from fakes.fake_llm import openai_text
from test_openai_api import new_key, sdk, start, two_servers

FIRST_ITEMS = [{"type": "message", "role": "user", "content": "Hi, I ordered A-1."},
               {"type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": "Noted: order A-1."}]}]


def sent_messages(llm):
    return [(m["role"], m["content"]) for m in llm.requests[-1]["body"]["messages"] if m["role"] != "system"]


def conv(tenant, key, op, **args):
    return sdk(tenant, key, "conversation", op=op, **args)


def texts(items):
    return [(i["role"], i["content"][0]["text"]) for i in items]


def test_a_conversation_made_with_items_is_continued_by_responses_and_lists_every_item(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    made = conv(tenant, key, "create", items=FIRST_ITEMS, metadata={"ticket": "T-7"})["result"]
    assert made["object"] == "conversation" and made["id"].startswith("conv_"), made
    assert made["metadata"] == {"ticket": "T-7"} and made["created_at"] > 0

    llm.push(openai_text("It ships today."))
    r1 = sdk(tenant, key, "response", model="bot", input="When does it ship?", conversation=made["id"])
    assert r1["result"]["output_text"] == "It ships today.", r1
    assert r1["result"]["conversation"] == {"id": made["id"]}
    # The model saw the conversation's items as the turn's history.
    assert sent_messages(llm) == [("user", "Hi, I ordered A-1."), ("assistant", "Noted: order A-1."),
                                  ("user", "When does it ship?")]
    llm.push(openai_text("By courier."))
    sdk(tenant, key, "response", model="bot", input="How?", conversation=made["id"])

    # Six items, walked two per page by the SDK, oldest first; newest first by default.
    walked = conv(tenant, key, "items-list", id=made["id"], limit=2, order="asc")["result"]
    assert walked["pages"] == 3, walked
    assert texts(walked["items"]) == [
        ("user", "Hi, I ordered A-1."), ("assistant", "Noted: order A-1."), ("user", "When does it ship?"),
        ("assistant", "It ships today."), ("user", "How?"), ("assistant", "By courier.")]
    assert all(i["type"] == "message" and i["status"] == "completed" for i in walked["items"])
    newest = conv(tenant, key, "items-list", id=made["id"])["result"]
    assert newest["pages"] == 1 and newest["items"] == list(reversed(walked["items"]))

    one = conv(tenant, key, "item-retrieve", id=made["id"], item=walked["items"][3]["id"])["result"]
    assert one == walked["items"][3]
    # The conversation is the agent's now, and no other conversation was made.
    assert conv(tenant, key, "retrieve", id=made["id"])["result"] == made
    _, _, listed = tenant.server.admin("GET", f"/orgs/{tenant.org}/conversations")
    assert [c["id"] for c in listed["conversations"]] == [made["id"]], listed
    assert listed["conversations"][0]["agent_id"] == "bot"


@pytest.mark.both_stores
def test_items_are_added_and_deleted_and_metadata_replaced_and_the_model_sees_what_is_left(
        start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    made = conv(tenant, key, "create")["result"]
    assert made["metadata"] == {}
    added = conv(tenant, key, "items-create", id=made["id"], items=FIRST_ITEMS + [
        {"role": "user", "content": [{"type": "input_text", "text": "Wrong order, ignore."}]}])["result"]
    assert added["object"] == "list" and len(added["data"]) == 3, added
    assert added["first_id"] == added["data"][0]["id"] and added["last_id"] == added["data"][2]["id"]
    wrong = added["data"][2]["id"]
    after = conv(tenant, key, "item-delete", id=made["id"], item=wrong)["result"]
    assert after["id"] == made["id"], after
    gone = conv(tenant, key, "item-retrieve", id=made["id"], item=wrong)["error"]
    assert gone["status"] == 404 and gone["class"] == "NotFoundError", gone

    llm.push(openai_text("Tomorrow."))
    sdk(tenant, key, "response", model="bot", input="When?", conversation={"id": made["id"]})
    assert sent_messages(llm) == [("user", "Hi, I ordered A-1."), ("assistant", "Noted: order A-1."),
                                  ("user", "When?")]

    updated = conv(tenant, key, "update", id=made["id"], metadata={"stage": "shipping"})["result"]
    assert updated["metadata"] == {"stage": "shipping"}
    assert conv(tenant, key, "retrieve", id=made["id"])["result"]["metadata"] == {"stage": "shipping"}

    deleted = conv(tenant, key, "delete", id=made["id"])["result"]
    assert deleted == {"id": made["id"], "object": "conversation.deleted", "deleted": True}
    missing = conv(tenant, key, "retrieve", id=made["id"])["error"]
    assert missing["status"] == 404 and missing["code"] == "conversation_not_found", missing
    refused = sdk(tenant, key, "response", model="bot", input="Still there?", conversation=made["id"])["error"]
    assert refused["status"] == 404 and refused["code"] == "conversation_not_found", refused


@pytest.mark.both_stores
def test_a_conversation_busy_with_a_turn_takes_no_items_and_is_not_deleted(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    made = conv(tenant, key, "create")["result"]
    llm.push(dict(openai_text("Slow answer."), delay=6.0))  # long enough for three SDK calls
    status, _, created = tenant.server.request(
        "POST", "/v1/responses", {"model": "bot", "input": "Think.", "background": True,
                                  "conversation": made["id"]}, {"authorization": f"Bearer {key}"})
    assert status == 200 and created["status"] == "queued", created
    deadline = time.time() + 5
    while not llm.requests and time.time() < deadline:
        time.sleep(0.05)
    assert llm.requests, "the background turn never reached the model"
    # Its input items are read once it has answered.
    early = sdk(tenant, key, "input-items", id=created["id"])["error"]
    assert early["status"] == 409 and early["code"] == "conflict", early
    busy = conv(tenant, key, "items-create", id=made["id"], items=FIRST_ITEMS)
    assert busy["error"]["status"] == 409 and busy["error"]["code"] == "conversation_busy", busy
    assert busy["requests"] == 1  # a 409 is not retried by the SDK
    still = conv(tenant, key, "delete", id=made["id"])["error"]
    assert still["status"] == 409 and still["code"] == "conversation_busy", still
    for _ in range(100):
        read = sdk(tenant, key, "retrieve", id=created["id"])["result"]
        if read["status"] == "completed":
            break
        time.sleep(0.1)
    assert read["output_text"] == "Slow answer.", read
    listed = conv(tenant, key, "items-list", id=made["id"], order="asc")["result"]
    assert texts(listed["items"]) == [("user", "Think."), ("assistant", "Slow answer.")]
    assert read["conversation"] == {"id": made["id"]}, read
    inputs = sdk(tenant, key, "input-items", id=created["id"])["result"]["items"]
    assert inputs == [listed["items"][0]], inputs


def test_a_conversation_is_only_its_environments_and_its_agents(start_server, llm):
    tenant = start(start_server, llm)
    tenant.agent("other")
    key = new_key(tenant, agents=("bot", "other"))
    narrow = new_key(tenant, agents=("other",))
    assert tenant.server.admin("POST", f"/orgs/{tenant.org}/environments", {"name": "dev"})[0] == 201
    status, _, tok = tenant.server.admin("POST", f"/orgs/{tenant.org}/tokens",
                                         {"name": "dev", "environments": ["dev"]})
    assert status == 201, tok
    tenant.server.admin("PUT", f"/orgs/{tenant.org}/grants",
                        {"token_id": tok["id"], "agent_id": "bot", "permissions": ["chat"]})
    dev_key = tok["api_keys"]["dev"]
    made = conv(tenant, key, "create", items=FIRST_ITEMS)["result"]
    for op, args in (("retrieve", {}), ("items-list", {}), ("items-create", {"items": FIRST_ITEMS}),
                     ("delete", {})):
        other_env = conv(tenant, dev_key, op, id=made["id"], **args)["error"]
        assert other_env["status"] == 404 and other_env["code"] == "conversation_not_found", (op, other_env)
    refused = sdk(tenant, dev_key, "response", model="bot", input="Hi.", conversation=made["id"])["error"]
    assert refused["status"] == 404 and refused["code"] == "conversation_not_found", refused

    llm.push(openai_text("Bound to bot."))
    sdk(tenant, key, "response", model="bot", input="Hi.", conversation=made["id"])
    calls = len(llm.requests)
    wrong_agent = sdk(tenant, key, "response", model="other", input="Hi.", conversation=made["id"])["error"]
    assert wrong_agent["status"] == 400 and wrong_agent["param"] == "conversation", wrong_agent
    assert len(llm.requests) == calls
    # A key with no chat grant on the conversation's agent does not see it at all.
    hidden = conv(tenant, narrow, "retrieve", id=made["id"])["error"]
    assert hidden["status"] == 404, hidden


def test_bad_conversation_input_names_the_field(start_server, llm):
    tenant = start(start_server, llm)
    key = new_key(tenant)
    made = conv(tenant, key, "create")["result"]
    cases = [
        ("create", {"items": [{"type": "web_search_call", "id": "w"}]}, "items[0].type"),
        ("create", {"items": [{"type": "function_call", "name": "f", "arguments": "{}"}]},
         "items[0].call_id"),
        ("create", {"items": [{"role": "system", "content": "x"}]}, "items[0].role"),
        ("create", {"metadata": {"k": 5}}, "metadata.k"),
        ("items-create", {"id": made["id"], "items": [{"role": "user", "content": 5}]}, "items[0].content"),
        ("update", {"id": made["id"], "metadata": {"k" * 65: "v"}}, None),
    ]
    for op, args, param in cases:
        error = conv(tenant, key, op, **args)["error"]
        assert error["status"] == 400 and error["type"] == "invalid_request_error", (op, error)
        if param:
            assert error["param"] == param, (op, error)
    too_many = conv(tenant, key, "items-create", id=made["id"], items=[FIRST_ITEMS[0]] * 21)["error"]
    assert too_many["status"] == 400 and too_many["param"] == "items", too_many
    for asked, param in ((dict(input="Hi.", conversation="nope"), "conversation"),
                         (dict(input="Hi.", conversation=made["id"], previous="resp_00"), "conversation"),
                         (dict(input="Hi.", conversation=made["id"], store="false"), "conversation"),
                         (dict(input=[{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                                      {"role": "user", "content": "c"}], conversation=made["id"]), "input")):
        error = sdk(tenant, key, "response", model="bot", **asked)["error"]
        assert error["status"] == 400 and error["param"] == param, (asked, error)
    other = conv(tenant, key, "item-retrieve", id=made["id"], item="msg_00_1")["error"]
    assert other["status"] == 404, other
    bad_limit = tenant.server.request("GET", f"/v1/conversations/{made['id']}/items?limit=0", None,
                                      {"authorization": f"Bearer {key}"})
    assert bad_limit[0] == 400 and bad_limit[2]["error"]["param"] == "limit", bad_limit


@pytest.mark.postgres
def test_a_conversation_made_on_one_server_is_continued_and_listed_on_the_other(start_server, llm):
    tenant, other, key = two_servers(start_server, llm)
    made = conv(tenant, key, "create", items=FIRST_ITEMS)["result"]
    llm.push(openai_text("From the second."))
    out = sdk(other, key, "response", model="bot", input="And now?", conversation=made["id"])["result"]
    assert out["output_text"] == "From the second.", out
    listed = conv(tenant, key, "items-list", id=made["id"], order="asc")["result"]
    assert texts(listed["items"])[-2:] == [("user", "And now?"), ("assistant", "From the second.")]
    # Its items, referenced from the other server, are read from the shared store.
    llm.push(openai_text("Read across."))
    ref = [{"type": "item_reference", "id": i["id"]} for i in listed["items"][:2]]
    across = sdk(other, key, "response", model="bot", store="false",
                 input=ref + [{"role": "user", "content": "Still?"}])["result"]
    assert across["output_text"] == "Read across.", across
    assert sent_messages(llm) == [("user", "Hi, I ordered A-1."), ("assistant", "Noted: order A-1."),
                                  ("user", "Still?")]
