// agentgate operator console, the shared part: building elements, calling the admin API
// (/admin/v1) with the session cookie, forms, sign-in and the hash routes. The pages are in
// overview.js, orgs.js, agents.js and conversations.js. Everything the console does is also a
// curl call (README).
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
        if (!location.hash || location.hash === "#/") location.hash = "#/overview";
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
    else if (parts[0] === "orgs") await showOrgs();
    else await showOverview();
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
