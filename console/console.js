// agentgate operator console: a page per hash route (#/orgs, #/orgs/<id>, #/orgs/<id>/agents,
// #/orgs/<id>/agents/<agent>), drawn from the admin API (/admin/v1) with the session cookie.
// Everything it does is also a curl call (README).
// Text from the API is only ever set as textContent, never parsed as HTML.
"use strict";

const state = { csrf: null };
const main = () => document.getElementById("main");

// h("p", {class: "muted"}, "text", child...) -> element.
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["X-CSRF-Token"] = state.csrf || "";
  const res = await fetch(path, {
    method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const data = text ? JSON.parse(text) : {};
  if (!res.ok) {
    const e = data.error || {};
    const error = new ApiError(res.status, e.code || "error", e.message || res.statusText);
    if (res.status === 401 && path.startsWith("/admin/")) {
      state.csrf = null;
      showSignIn("Your session has ended. Sign in again.");
      error.handled = true;  // the sign-in page replaced whatever asked
    }
    throw error;
  }
  return data;
}

// A form whose submit runs `action(values)`; its error is shown inside the form.
function form(attrs, fields, submitLabel, action) {
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const f = h("form", attrs, fields, h("button", { type: "submit" }, submitLabel), error);
  f.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.hidden = true;
    const button = f.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await action(new FormData(f));
    } catch (e) {
      if (e.handled) return;
      error.textContent = e.message;
      error.hidden = false;
    } finally {
      button.disabled = false;
    }
  });
  return f;
}

function field(label, name, attrs) {
  return h("label", {}, label, h("input", { type: "text", name, ...attrs }));
}

function show(...content) {
  const m = main();
  m.replaceChildren(...content.flat().filter((c) => c !== null && c !== undefined && c !== false));
  m.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

function showError(e) {
  if (e.handled) return;
  show(h("div", { class: "card" }, h("h1", {}, "Something went wrong"),
    h("p", { class: "error", role: "alert" }, e.message), h("a", { href: "#/orgs" }, "Back to organizations")));
}

function money(usd) {
  return usd === null || usd === undefined ? "unlimited" : "$" + Number(usd).toFixed(2);
}

function date(iso) {
  return iso ? iso.replace("T", " ").replace("Z", " UTC") : "";
}

// --- sign-in -------------------------------------------------------------------------------

function showSignIn(notice) {
  document.getElementById("nav").hidden = true;
  show(h("section", { class: "card signin", "aria-labelledby": "signin-title" },
    h("h1", { id: "signin-title" }, "Sign in"),
    notice ? h("p", { class: "muted" }, notice) : null,
    h("p", { class: "muted" }, "Use the admin token the server was started with (",
      h("code", {}, "make run"), " prints it). It is exchanged for a session and not kept by this browser."),
    form({ id: "signin-form" },
      [h("label", {}, "Admin token",
        h("input", { type: "password", name: "admin_token", autocomplete: "off", required: true }))],
      "Sign in",
      async (values) => {
        const session = await api("POST", "/console/session", { admin_token: values.get("admin_token") });
        state.csrf = session.csrf_token;
        document.getElementById("nav").hidden = false;
        if (!location.hash || location.hash === "#/") location.hash = "#/orgs";
        else route();
      })));
}

function showAdminDisabled() {
  show(h("section", { class: "card signin" }, h("h1", {}, "The admin API is disabled"),
    h("p", {}, "This server was started without an admin token, so neither the admin API nor this console "
      + "can be used. Set one (", h("code", {}, "AGENTGATE_ADMIN_TOKEN"), ", or the variable ",
      h("code", {}, "[admin] token_env"), " names) and restart the server.")));
}

async function signOut() {
  try {
    await api("DELETE", "/console/session");
  } finally {
    state.csrf = null;
    showSignIn("You are signed out.");
  }
}

// --- organizations -------------------------------------------------------------------------

async function showOrgs() {
  const { orgs } = await api("GET", "/admin/v1/orgs?limit=1000");
  const rows = orgs.map((o) => h("tr", {},
    h("td", { "data-label": "Id" }, h("a", { href: "#/orgs/" + encodeURIComponent(o.id) }, o.id)),
    h("td", { "data-label": "Name" }, o.name),
    h("td", { "data-label": "Monthly limit" }, money(o.monthly_spend_limit_usd)),
    h("td", { "data-label": "Created" }, date(o.created_at))));
  const list = orgs.length
    ? h("table", { id: "org-list" }, h("thead", {}, h("tr", {}, h("th", {}, "Id"), h("th", {}, "Name"),
      h("th", {}, "Monthly limit"), h("th", {}, "Created"))), h("tbody", {}, rows))
    : h("p", { class: "muted", id: "org-empty" },
      "No organizations yet — create one below (or with POST /admin/v1/orgs).");
  show(h("h1", {}, "Organizations"),
    h("section", { class: "card" }, list),
    h("section", { class: "card", "aria-labelledby": "new-org" }, h("h2", { id: "new-org" }, "New organization"),
      form({ id: "org-form" }, [
        field("Name", "name", { required: true }),
        field("Id (optional)", "id", { placeholder: "generated when empty" }),
        field("Monthly spend limit, USD (optional)", "limit", { inputmode: "decimal" }),
      ], "Create organization", async (values) => {
        const body = { name: values.get("name") };
        if (values.get("id")) body.id = values.get("id");
        if (values.get("limit")) body.monthly_spend_limit_usd = Number(values.get("limit"));
        const org = await api("POST", "/admin/v1/orgs", body);
        location.hash = "#/orgs/" + encodeURIComponent(org.id);
      })));
}

async function showOrg(orgId) {
  const base = "/admin/v1/orgs/" + encodeURIComponent(orgId);
  const [org, { tokens }] = await Promise.all([api("GET", base), api("GET", base + "/tokens")]);
  const issued = h("div", { id: "issued-token", "aria-live": "polite" });

  const envList = org.environments.length
    ? h("ul", { id: "env-list" }, org.environments.map((e) => h("li", {}, e)))
    : h("p", { class: "muted" }, "No environments yet — add one (e.g. prod or dev) before issuing tokens.");

  const tokenRows = tokens.map((t) => h("tr", {},
    h("td", { "data-label": "Name" }, t.name),
    h("td", { "data-label": "Id" }, h("code", {}, t.id)),
    h("td", { "data-label": "Environments" }, t.environments ? t.environments.join(", ") : "all"),
    h("td", { "data-label": "Created" }, date(t.created_at)),
    h("td", { "data-label": "State" }, t.revoked
      ? h("span", { class: "tag revoked" }, "revoked")
      : h("button", {
        type: "button", class: "danger", "data-token": t.id,
        onclick: async () => {
          if (!window.confirm("Revoke token " + t.name + " (" + t.id + ")? Callers using it get 401 at once.")) return;
          try {
            await api("DELETE", base + "/tokens/" + encodeURIComponent(t.id));
            await showOrg(orgId);
          } catch (e) { showError(e); }
        },
      }, "Revoke"))));
  const tokenList = tokens.length
    ? h("table", { id: "token-list" }, h("thead", {}, h("tr", {}, h("th", {}, "Name"), h("th", {}, "Id"),
      h("th", {}, "Environments"), h("th", {}, "Created"), h("th", {}, "State"))), h("tbody", {}, tokenRows))
    : h("p", { class: "muted" }, "No tokens yet — issue one below; the token is shown once.");

  show(
    h("p", {}, h("a", { href: "#/orgs" }, "← Organizations")),
    h("h1", {}, org.name, " ", h("span", { class: "muted" }, "(" + org.id + ")")),
    h("p", { class: "links" },
      h("a", { href: "#/orgs/" + encodeURIComponent(orgId) + "/agents", id: "agents-link" }, "Agents →"),
      h("a", { href: "#/orgs/" + encodeURIComponent(orgId) + "/conversations", id: "conversations-link" }, "Conversations →")),
    h("section", { class: "card", "aria-labelledby": "limit-title" },
      h("h2", { id: "limit-title" }, "Monthly spend limit"),
      h("p", { id: "org-limit" }, money(org.monthly_spend_limit_usd)),
      form({ id: "limit-form" }, [
        field("New limit, USD (empty = unlimited)", "limit", { inputmode: "decimal" }),
      ], "Save limit", async (values) => {
        const text = values.get("limit");
        await api("PATCH", base, { monthly_spend_limit_usd: text === "" ? null : Number(text) });
        await showOrg(orgId);
      })),
    h("section", { class: "card", "aria-labelledby": "env-title" },
      h("h2", { id: "env-title" }, "Environments"), envList,
      form({ id: "env-form" }, [field("Name", "name", { required: true, placeholder: "prod" })],
        "Add environment", async (values) => {
          await api("POST", base + "/environments", { name: values.get("name") });
          await showOrg(orgId);
        })),
    h("section", { class: "card", "aria-labelledby": "token-title" },
      h("h2", { id: "token-title" }, "API tokens"), issued, tokenList,
      form({ id: "token-form" }, [
        field("Name", "name", { required: true, placeholder: "backend" }),
        ...org.environments.map((e) => h("label", { class: "inline" },
          h("input", { type: "checkbox", name: "environments", value: e }), " " + e)),
      ], "Issue token", async (values) => {
        const body = { name: values.get("name") };
        const envs = values.getAll("environments");
        if (envs.length) body.environments = envs;
        const created = await api("POST", base + "/tokens", body);
        await showOrg(orgId);
        showIssuedToken(created);
      })));
}

// A new token is shown once, here, with a copy button; it is never fetched again.
function showIssuedToken(created) {
  const code = h("code", { id: "new-token-value" }, created.token);
  const status = h("span", { class: "ok", "aria-live": "polite" });
  document.getElementById("issued-token").replaceChildren(h("div", { class: "secret" },
    h("strong", {}, "Token " + created.name + ":"), code,
    h("button", {
      type: "button", class: "secondary", id: "copy-token",
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(created.token);
          status.textContent = "Copied.";
        } catch {
          window.getSelection().selectAllChildren(code);
          status.textContent = "Selected: press Ctrl+C to copy.";
        }
      },
    }, "Copy"),
    status,
    h("p", { class: "muted" }, "Store it now: it is shown only this once.")));
  code.scrollIntoView({ block: "center" });
}

// --- agents --------------------------------------------------------------------------------

const AGENT_TEMPLATE = {
  name: "Support bot",
  description: "Answers questions about orders",
  instructions: "You are a helpful assistant.",
  model: { provider: "offline", name: "offline-1" },
};

function pretty(value) {
  return JSON.stringify(value, null, 2);
}

// A JSON editor field: the parsed value, or an error naming the field.
function parseConfig(text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error("'config' is not valid JSON: " + e.message);
  }
}

function configEditor(name, value) {
  return h("label", { class: "wide" }, "Config (JSON)",
    h("textarea", { name, rows: 14, spellcheck: "false" }, pretty(value)));
}

async function showAgents(orgId) {
  const base = "/admin/v1/orgs/" + encodeURIComponent(orgId);
  const { agents } = await api("GET", base + "/agents");
  const rows = agents.map((a) => h("tr", {},
    h("td", { "data-label": "Id" },
      h("a", { href: "#/orgs/" + encodeURIComponent(orgId) + "/agents/" + encodeURIComponent(a.id) }, a.id)),
    h("td", { "data-label": "Name" }, a.name),
    h("td", { "data-label": "Latest version" }, String(a.latest_version)),
    h("td", { "data-label": "Deployed" },
      a.deployments.length ? a.deployments.map((d) => d.env + " → v" + d.version).join(", ") : "nowhere")));
  const list = agents.length
    ? h("table", { id: "agent-list" }, h("thead", {}, h("tr", {}, h("th", {}, "Id"), h("th", {}, "Name"),
      h("th", {}, "Latest version"), h("th", {}, "Deployed"))), h("tbody", {}, rows))
    : h("p", { class: "muted" }, "No agents yet — create one below (or with POST " + base + "/agents), then deploy it to an environment.");
  show(
    h("p", {}, h("a", { href: "#/orgs/" + encodeURIComponent(orgId) }, "← Organization " + orgId)),
    h("h1", {}, "Agents"),
    h("section", { class: "card" }, list),
    h("section", { class: "card", "aria-labelledby": "new-agent" }, h("h2", { id: "new-agent" }, "New agent"),
      form({ id: "agent-form" }, [
        field("Id (optional)", "id", { placeholder: "generated when empty" }),
        configEditor("config", AGENT_TEMPLATE),
      ], "Create agent", async (values) => {
        const body = { config: parseConfig(values.get("config")) };
        if (values.get("id")) body.id = values.get("id");
        const created = await api("POST", base + "/agents", body);
        location.hash = "#/orgs/" + encodeURIComponent(orgId) + "/agents/" + encodeURIComponent(created.id);
      })));
}

async function showAgent(orgId, agentId) {
  const base = "/admin/v1/orgs/" + encodeURIComponent(orgId);
  const agentBase = base + "/agents/" + encodeURIComponent(agentId);
  const [agent, org, { tokens }, usage] = await Promise.all([
    api("GET", agentBase), api("GET", base), api("GET", base + "/tokens"), api("GET", base + "/usage")]);
  const latest = agent.versions[0];
  const again = () => showAgent(orgId, agentId);
  const tokenName = Object.fromEntries(tokens.map((t) => [t.id, t.name]));
  const spent = (usage.agents.find((a) => a.agent_id === agentId) || { spent_usd: 0 }).spent_usd;
  const limit = latest.config.monthly_spend_limit_usd;

  const deployments = agent.deployments.length
    ? h("table", { id: "deployment-list" }, h("thead", {}, h("tr", {}, h("th", {}, "Environment"), h("th", {}, "Version"))),
      h("tbody", {}, agent.deployments.map((d) => h("tr", {},
        h("td", { "data-label": "Environment" }, d.env), h("td", { "data-label": "Version" }, "v" + d.version)))))
    : h("p", { class: "muted" }, "Not deployed — an agent answers only in environments it is deployed to.");

  const grants = agent.grants.length
    ? h("table", { id: "grant-list" }, h("thead", {}, h("tr", {}, h("th", {}, "Token"), h("th", {}, "Permissions"), h("th", {}, ""))),
      h("tbody", {}, agent.grants.map((g) => h("tr", {},
        h("td", { "data-label": "Token" }, (tokenName[g.token_id] || "?") + " ", h("code", {}, g.token_id)),
        h("td", { "data-label": "Permissions" }, g.permissions.join(", ")),
        h("td", {}, h("button", {
          type: "button", class: "danger", "data-grant": g.token_id,
          onclick: async () => {
            if (!window.confirm("Remove the grant of token " + g.token_id + " on " + agentId + "?")) return;
            try {
              await api("PUT", base + "/grants", { token_id: g.token_id, agent_id: agentId, permissions: [] });
              await again();
            } catch (e) { showError(e); }
          },
        }, "Remove"))))))
    : h("p", { class: "muted" }, "No token may chat with this agent yet — grant one below.");

  const versions = h("div", { id: "version-list" }, agent.versions.map((v, i) => h("details", { open: i === 0 },
    h("summary", {}, "v" + v.version + " — " + date(v.created_at)),
    h("pre", { class: "json" }, pretty(v.config)))));

  const instanceSection = latest.config.per_instance
    ? h("section", { class: "card", "aria-labelledby": "instance-title" },
      h("h2", { id: "instance-title" }, "Instances"),
      agent.instances.length
        ? h("ul", { id: "instance-list" }, agent.instances.map((i) => h("li", {}, i.instance_id,
          i.instructions ? h("span", { class: "muted" }, " — " + i.instructions) : null)))
        : h("p", { class: "muted" }, "No instances yet — add one per store, team or customer."),
      form({ id: "instance-form" }, [field("Instance id", "instance_id", { required: true }),
        field("Instructions (optional)", "instructions")], "Add instance", async (values) => {
        const body = { instance_id: values.get("instance_id") };
        if (values.get("instructions")) body.instructions = values.get("instructions");
        await api("POST", agentBase + "/instances", body);
        await again();
      }))
    : null;

  show(
    h("p", {}, h("a", { href: "#/orgs/" + encodeURIComponent(orgId) + "/agents" }, "← Agents of " + orgId)),
    h("h1", {}, latest.config.name || agentId, " ", h("span", { class: "muted" }, "(" + agentId + ")")),
    latest.config.description ? h("p", {}, latest.config.description) : null,
    h("section", { class: "card", "aria-labelledby": "spend-title" },
      h("h2", { id: "spend-title" }, "Spend this month"),
      h("p", { id: "agent-spend" }, money(spent) + " of " + money(limit) + " (" + usage.month + ")")),
    h("section", { class: "card", "aria-labelledby": "deploy-title" },
      h("h2", { id: "deploy-title" }, "Deployments"), deployments,
      org.environments.length
        ? form({ id: "deploy-form" }, [
          h("label", {}, "Environment", h("select", { name: "env" }, org.environments.map((e) => h("option", { value: e }, e)))),
          h("label", {}, "Version", h("select", { name: "version" },
            agent.versions.map((v) => h("option", { value: String(v.version) }, "v" + v.version)))),
        ], "Deploy", async (values) => {
          await api("PUT", agentBase + "/deployments/" + encodeURIComponent(values.get("env")),
            { version: Number(values.get("version")) });
          await again();
        })
        : h("p", { class: "muted" }, "The organization has no environment to deploy to — add one first.")),
    h("section", { class: "card", "aria-labelledby": "grant-title" },
      h("h2", { id: "grant-title" }, "Grants"), grants,
      tokens.some((t) => !t.revoked)
        ? form({ id: "grant-form" }, [
          h("label", {}, "Token", h("select", { name: "token_id" },
            tokens.filter((t) => !t.revoked).map((t) => h("option", { value: t.id }, t.name + " (" + t.id + ")")))),
        ], "Grant chat", async (values) => {
          await api("PUT", base + "/grants", { token_id: values.get("token_id"), agent_id: agentId, permissions: ["chat"] });
          await again();
        })
        : h("p", { class: "muted" }, "The organization has no live token — issue one on its page.")),
    instanceSection,
    h("section", { class: "card", "aria-labelledby": "version-title" },
      h("h2", { id: "version-title" }, "Versions"),
      h("p", { class: "muted" }, "A version never changes once created; edit a copy to make the next one."),
      versions,
      form({ id: "version-form" }, [configEditor("config", latest.config)], "Create version", async (values) => {
        await api("POST", agentBase + "/versions", { config: parseConfig(values.get("config")) });
        await again();
      })));
}

// --- conversations -------------------------------------------------------------------------

function stopReason(turn) {
  return turn.terminated_reason ? "stopped: " + turn.terminated_reason : "complete";
}

async function showConversations(orgId, query) {
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
  const rows = page.conversations.map((c) => h("tr", {},
    h("td", { "data-label": "Conversation" }, h("a", { href: here + "/" + encodeURIComponent(c.id) }, c.id)),
    h("td", { "data-label": "Agent" }, c.agent_id + (c.instance_id ? " / " + c.instance_id : "")),
    h("td", { "data-label": "Env" }, c.env),
    h("td", { "data-label": "Started" }, date(c.created_at)),
    h("td", { "data-label": "Turns" }, String(c.turns)),
    h("td", { "data-label": "Last turn" }, c.last_turn_at ? date(c.last_turn_at) : "none yet"),
    h("td", { "data-label": "Cost" }, money(c.cost_usd))));
  const list = page.conversations.length
    ? h("table", { id: "conversation-list" }, h("thead", {}, h("tr", {}, ["Conversation", "Agent", "Env", "Started",
      "Turns", "Last turn", "Cost"].map((t) => h("th", {}, t)))), h("tbody", {}, rows))
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

async function showConversation(orgId, conversationId) {
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

// --- routing -------------------------------------------------------------------------------

async function route() {
  if (!state.csrf) return;
  const [path, search] = location.hash.replace(/^#\/?/, "").split("?");
  const parts = path.split("/").map(decodeURIComponent);
  const query = new URLSearchParams(search || "");
  try {
    if (parts[0] === "orgs" && parts[1] && parts[2] === "conversations" && parts[3]) await showConversation(parts[1], parts[3]);
    else if (parts[0] === "orgs" && parts[1] && parts[2] === "conversations") await showConversations(parts[1], query);
    else if (parts[0] === "orgs" && parts[1] && parts[2] === "agents" && parts[3]) await showAgent(parts[1], parts[3]);
    else if (parts[0] === "orgs" && parts[1] && parts[2] === "agents") await showAgents(parts[1]);
    else if (parts[0] === "orgs" && parts[1]) await showOrg(parts[1]);
    else await showOrgs();
  } catch (e) {
    showError(e);
  }
}

async function start() {
  document.getElementById("sign-out").addEventListener("click", signOut);
  window.addEventListener("hashchange", route);
  const session = await (await fetch("/console/session", { credentials: "same-origin" })).json();
  if (!session.admin_api_enabled) return showAdminDisabled();
  if (!session.signed_in) return showSignIn();
  state.csrf = session.csrf_token;
  document.getElementById("nav").hidden = false;
  await route();
}

document.addEventListener("DOMContentLoaded", start);
