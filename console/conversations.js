// Conversation pages (#/orgs/<id>/conversations[/<id>]): the search and the transcript view.
import { api, date, h, money, show, table } from "./ui.js";

function stopReason(turn) {
  return turn.terminated_reason ? "stopped: " + turn.terminated_reason : "complete";
}

export async function showConversations(orgId, query) {
  const base = "/admin/v1/orgs/" + encodeURIComponent(orgId);
  const params = new URLSearchParams();
  for (const key of ["agent", "env", "since", "until", "before"]) if (query.get(key)) params.set(key, query.get(key));
  const [org, { agents }, page] = await Promise.all([
    api("GET", base), api("GET", base + "/agents"), api("GET", base + "/conversations?" + params)]);
  const here = "#/orgs/" + encodeURIComponent(orgId) + "/conversations";
  const select = (label, name, options) => h("label", {}, label, h("select", { name },
    h("option", { value: "" }, "any"),
    options.map((o) => h("option", { value: o, selected: query.get(name) === o }, o))));
  const dateField = (label, name) => h("label", {}, label,
    h("input", { type: "date", name, value: query.get(name) || "" }));
  const search = h("form", { id: "conversation-search" },
    select("Agent", "agent", agents.map((a) => a.id)), select("Environment", "env", org.environments),
    dateField("From", "since"), dateField("To", "until"), h("button", { type: "submit" }, "Search"));
  search.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const next = new URLSearchParams();
    for (const [k, v] of new FormData(search)) if (v) next.set(k, v);
    location.hash = here + (next.toString() ? "?" + next : "");
  });
  const list = page.conversations.length
    ? table("conversation-list", ["Conversation", "Agent", "Env", "Started", "Turns", "Last turn", "Cost"],
      page.conversations, (c) => [
        h("a", { href: here + "/" + encodeURIComponent(c.id) }, c.id),
        c.agent_id + (c.instance_id ? " / " + c.instance_id : ""), c.env, date(c.created_at),
        String(c.turns), c.last_turn_at ? date(c.last_turn_at) : "none yet", money(c.cost_usd)])
    : h("p", { class: "muted", id: "conversation-empty" }, params.toString()
      ? "No conversation matches — widen the search."
      : "No conversations yet — a call with \"stateful\": true starts one.");
  let older = null;
  if (page.next_before) {
    const next = new URLSearchParams(params);
    next.set("before", page.next_before);
    older = h("p", {}, h("a", { href: here + "?" + next, id: "older" }, "Older conversations →"));
  }
  show(
    h("p", {}, h("a", { href: "#/orgs/" + encodeURIComponent(orgId) }, "← Organization " + orgId)),
    h("h1", {}, "Conversations"),
    h("section", { class: "card" }, search),
    h("section", { class: "card" }, list, older));
}

function bubble(role, content, withheld) {
  return h("div", { class: "bubble " + role },
    h("div", { class: "who" }, role === "user" ? "User" : role === "assistant" ? "Agent" : role),
    withheld ? h("span", { class: "tag revoked" }, "withheld by the safety policy") : null,
    h("div", { class: "text" }, content));
}

function turnCard(turn, index) {
  const t = turn.transcript || {};
  const steps = (t.messages || []).flatMap((m) => {
    const out = [];
    if (m.role === "tool") out.push(h("li", {}, h("strong", {}, "tool result: "), h("pre", {}, m.content)));
    else if (m.content) out.push(h("li", {}, h("strong", {}, m.role + ": "), m.content));
    for (const c of m.tool_calls || []) {
      out.push(h("li", {}, h("strong", {}, "tool call: "), h("code", {}, c.name + " " + c.arguments)));
    }
    return out;
  });
  const calls = (t.model_calls || []).map((c, i) => h("li", {},
    "model call " + (i + 1) + ": " + c.input_tokens + " in / " + c.output_tokens + " out tokens, "
    + (c.seconds * 1000).toFixed(1) + " ms" + (c.failure ? " — failed: " + c.failure : "")));
  const summary = t.history_summary;
  return h("article", { class: "card turn", "data-turn": turn.id },
    h("h2", {}, "Turn " + (index + 1), " ",
      h("span", { class: turn.terminated_reason ? "tag revoked" : "tag" }, stopReason(turn)),
      turn.blocked ? h("span", { class: "tag revoked" }, "reply withheld") : null),
    h("p", { class: "muted" }, date(turn.started_at) + " · v" + turn.version + " · " + turn.duration_ms + " ms · "
      + turn.model_calls + " model calls · " + turn.input_tokens + " in / " + turn.output_tokens + " out tokens · ",
    h("span", { class: "turn-cost" }, money(turn.cost_usd))),
    summary ? h("p", { class: "note" }, summary.skipped
      ? "History summary skipped: " + summary.skipped
      : "Older messages (through #" + summary.through_seq + ") were summarized for this turn.") : null,
    t.failure ? h("p", { class: "error" }, "Failure: " + t.failure) : null,
    (t.notes || []).map((n) => h("p", { class: "note" }, typeof n === "string" ? n : JSON.stringify(n))),
    h("details", {}, h("summary", {}, "What the model saw and did"),
      t.system ? h("p", {}, h("strong", {}, "system: "), t.system) : null,
      h("ol", { class: "steps" }, steps), h("ul", {}, calls)));
}

export async function showConversation(orgId, conversationId) {
  const base = "/admin/v1/orgs/" + encodeURIComponent(orgId);
  const c = await api("GET", base + "/conversations/" + encodeURIComponent(conversationId));
  // Each turn stores its message and its reply (or the safety placeholder), in turn order: the
  // k-th reply is turn k's.
  const total = c.turns.reduce((sum, t) => sum + t.cost_usd, 0);
  let reply = 0;
  const bubbles = c.messages.map((m) => bubble(m.role, m.content,
    m.role === "assistant" && Boolean((c.turns[reply++] || {}).blocked)));
  show(
    h("p", {}, h("a", { href: "#/orgs/" + encodeURIComponent(orgId) + "/conversations" }, "← Conversations")),
    h("h1", {}, "Conversation ", h("span", { class: "muted" }, c.id)),
    h("p", { class: "muted" }, "Agent " + c.agent_id + (c.instance_id ? " / " + c.instance_id : "") + " · " + c.env
      + " · started " + date(c.created_at) + " · " + c.turns.length + " turns · ",
    h("span", { id: "conversation-cost" }, money(total))),
    h("section", { class: "card chat", id: "chat", "aria-label": "History" },
      bubbles.length ? bubbles : h("p", { class: "muted" }, "No messages stored.")),
    c.turns.map(turnCard));
}
