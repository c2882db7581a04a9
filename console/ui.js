// agentgate operator console, the shared part: building elements and tables, calling the admin API
// (/admin/v1) with the session cookie, forms, and the page frame. Text from the API is only ever
// set as textContent, never parsed as HTML.

const session = { csrf: null, ended: null };

// The session's CSRF token once signed in (null when signed out), and what to show when the API
// says the session ended (the sign-in page, set by console.js).
export function setSession(csrf) {
  session.csrf = csrf;
}
export function signedIn() {
  return session.csrf !== null;
}
export function onSessionEnded(handler) {
  session.ended = handler;
}

// h("p", {class: "muted"}, "text", child...) -> element.
export function h(tag, attrs, ...children) {
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

// A table of `items`, a row each: `cells(item)` gives its cells in the order of `columns`, whose
// names head the table and label each cell for the narrow layout. A cell is content, or a td of
// its own (for a class); an empty column name heads a column of buttons.
export function table(id, columns, items, cells) {
  const cell = (content, i) => {
    const td = content instanceof HTMLTableCellElement ? content : h("td", {}, content);
    if (columns[i]) td.setAttribute("data-label", columns[i]);
    return td;
  };
  return h("table", { id },
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", {}, c)))),
    h("tbody", {}, items.map((item) => h("tr", {}, cells(item).map(cell)))));
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["X-CSRF-Token"] = session.csrf || "";
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
      session.csrf = null;
      if (session.ended) session.ended("Your session has ended. Sign in again.");
      error.handled = true;  // the sign-in page replaced whatever asked
    }
    throw error;
  }
  return data;
}

// A form whose submit runs `action(values)`; its error is shown inside the form.
export function form(attrs, fields, submitLabel, action) {
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

export function field(label, name, attrs) {
  return h("label", {}, label, h("input", { type: "text", name, ...attrs }));
}

// A button that asks first, runs `action`, and shows its error as the page.
export function confirmButton(attrs, label, question, action) {
  return h("button", {
    type: "button", class: "danger", ...attrs,
    onclick: async () => {
      if (!window.confirm(question)) return;
      try {
        await action();
      } catch (e) { showError(e); }
    },
  }, label);
}

export function show(...content) {
  const m = document.getElementById("main");
  m.replaceChildren(...content.flat().filter((c) => c !== null && c !== undefined && c !== false));
  m.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

export function showError(e, retry) {
  if (e.handled) return;
  show(h("div", { class: "card" }, h("h1", {}, "Something went wrong"),
    h("p", { class: "error", role: "alert" }, e.message),
    retry ? h("button", { type: "button", id: "retry", onclick: retry }, "Try again")
      : h("a", { href: "#/orgs" }, "Back to organizations")));
}

export function money(usd) {
  return usd === null || usd === undefined ? "unlimited" : "$" + Number(usd).toFixed(2);
}

export function date(iso) {
  return iso ? iso.replace("T", " ").replace("Z", " UTC") : "";
}
