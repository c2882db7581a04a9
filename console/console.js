// agentgate operator console: a page per hash route (#/orgs, #/orgs/<id>), drawn from the admin
// API (/admin/v1) with the session cookie. Everything it does is also a curl call (README).
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
  m.replaceChildren(...content);
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

// --- routing -------------------------------------------------------------------------------

async function route() {
  if (!state.csrf) return;
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  try {
    if (parts[0] === "orgs" && parts[1]) await showOrg(parts[1]);
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
