// Organization pages (#/orgs, #/orgs/<id>): orgs, environments, tokens, metadata gateway grants,
// OAuth clients, spend limits.
import { oauthClientsSection } from "./oauth_clients.js";
import { api, confirmButton, date, field, form, h, money, show, table } from "./ui.js";

export async function showOrgs() {
  const { orgs } = await api("GET", "/admin/v1/orgs?limit=1000");
  const list = orgs.length
    ? table("org-list", ["Id", "Name", "Monthly limit", "Created"], orgs, (o) => [
      h("a", { href: "#/orgs/" + encodeURIComponent(o.id) }, o.id), o.name,
      money(o.monthly_spend_limit_usd), date(o.created_at)])
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

export async function showOrg(orgId) {
  const base = "/admin/v1/orgs/" + encodeURIComponent(orgId);
  const [org, { tokens }, { secrets }] = await Promise.all([
    api("GET", base), api("GET", base + "/tokens"), api("GET", base + "/secrets")]);
  const crm = await Promise.all(org.environments.map((e) =>
    api("GET", base + "/environments/" + encodeURIComponent(e) + "/crm")));
  const grants = (await Promise.all(org.environments.map((e) =>
    api("GET", base + "/environments/" + encodeURIComponent(e) + "/grants")))).flatMap((g) => g.grants);
  const issued = h("div", { id: "issued-token", "aria-live": "polite" });
  const oauthClients = org.environments.length && tokens.length
    ? await oauthClientsSection(base, org.environments, tokens, () => showOrg(orgId)) : null;

  const envList = org.environments.length
    ? h("ul", { id: "env-list" }, org.environments.map((e, i) => h("li", { "data-env": e },
      h("strong", {}, e), " — ", crmSummary(crm[i]), " · ",
      h("a", { href: "#/orgs/" + encodeURIComponent(orgId) + "/environments/" + encodeURIComponent(e) + "/runs" },
        "runs"), " · ",
      h("a", { href: "#/orgs/" + encodeURIComponent(orgId) + "/environments/" + encodeURIComponent(e) + "/webhooks" },
        "webhooks"))))
    : h("p", { class: "muted" }, "No environments yet — add one (e.g. prod or dev) before issuing tokens.");

  const tokenList = tokens.length
    ? table("token-list", ["Name", "Id", "Environments", "Created", "State"], tokens, (t) => [
      t.name, h("code", {}, t.id), t.environments ? t.environments.join(", ") : "all", date(t.created_at),
      t.revoked
        ? h("span", { class: "tag revoked" }, "revoked")
        : confirmButton({ "data-token": t.id }, "Revoke",
          "Revoke token " + t.name + " (" + t.id + ")? Callers using it get 401 at once.", async () => {
            await api("DELETE", base + "/tokens/" + encodeURIComponent(t.id));
            await showOrg(orgId);
          })])
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
        }),
      org.environments.length ? crmForm(base, org.environments, () => showOrg(orgId)) : null),
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
      })),
    org.environments.length && tokens.length
      ? gatewaySection(base, org.environments, tokens, grants, () => showOrg(orgId)) : null,
    oauthClients,
    secretsSection(base, secrets, () => showOrg(orgId)));
}

// Which tokens may use the metadata gateway in which environment (metadata_write implies
// metadata_read); a new token has no access until granted here (docs/gateway.md).
function gatewaySection(base, environments, tokens, grants, again) {
  const names = Object.fromEntries(tokens.map((t) => [t.id, t.name]));
  const grantsPath = (env) => base + "/environments/" + encodeURIComponent(env) + "/grants";
  const list = grants.length
    ? table("gateway-grant-list", ["Token", "Environment", "Permissions", ""], grants, (g) => [
      h("span", {}, names[g.token_id] || "", " ", h("code", {}, g.token_id)), g.env, g.permissions.join(", "),
      confirmButton({ "data-grant": g.token_id + "@" + g.env }, "Revoke",
        "Revoke " + g.token_id + "'s gateway access in " + g.env + "? Its calls get 403 FL07 at once.", async () => {
          await api("DELETE", grantsPath(g.env) + "/" + encodeURIComponent(g.token_id));
          await again();
        })])
    : h("p", { class: "muted" }, "No token may use the metadata gateway yet — grant one below.");
  const live = tokens.filter((t) => !t.revoked);
  const f = form({ id: "gateway-grant-form" }, [
    h("label", {}, "Token", h("select", { name: "token_id" },
      live.map((t) => h("option", { value: t.id }, t.name + " (" + t.id + ")")))),
    h("label", {}, "Environment", h("select", { name: "env" }, environments.map((e) => h("option", { value: e }, e)))),
    h("label", {}, "Permission", h("select", { name: "permission" },
      h("option", { value: "metadata_read" }, "read (GET)"),
      h("option", { value: "metadata_write" }, "write (every method; implies read)"))),
  ], "Grant", async (values) => {
    await api("PUT", grantsPath(values.get("env")),
      { token_id: values.get("token_id"), permissions: [values.get("permission")] });
    await again();
  });
  return h("section", { class: "card", "aria-labelledby": "gateway-title" },
    h("h2", { id: "gateway-title" }, "Metadata gateway access"), list, f);
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
    // The same token as an OpenAI SDK's API key, one per environment (docs/openai.md).
    ...Object.entries(created.api_keys || {}).map(([env, key]) => h("p", {},
      "API key for " + env + " (an OpenAI SDK's apiKey): ",
      h("code", { class: "api-key", "data-env": env }, key))),
    h("p", { class: "muted" }, "Store it now: it is shown only this once.")));
  code.scrollIntoView({ block: "center" });
}

// An environment's CRM credentials as the API describes them: never a secret.
function crmSummary(c) {
  if (!c.set) return h("span", { class: "muted" }, "no CRM credentials (the gateway answers FL05)");
  const kind = c.kind === "static_session" ? "static session for " + c.instance_url
    : c.kind === "refresh_token" ? "OAuth refresh token at " + c.login_url : "credentials this server cannot open";
  const last = c.last_refresh;
  return h("span", { class: "crm-status" }, "CRM: " + kind + ", set " + date(c.set_at) + " · ",
    !last ? h("span", { class: "muted" }, "not refreshed since")
      : last.ok ? h("span", { class: "ok" }, "last refresh worked (" + date(last.at) + ")")
        : h("span", { class: "error-text" }, "last refresh failed (" + date(last.at) + "): " + last.error));
}

// Sets or replaces an environment's CRM credentials; the secrets go to the API once and are
// cleared from the form (the API never returns them).
function crmForm(base, environments, again) {
  const oauthFields = [field("Login URL", "login_url", { placeholder: "https://login.salesforce.com" }),
    field("Client id", "client_id"),
    h("label", {}, "Client secret", h("input", { type: "password", name: "client_secret", autocomplete: "new-password" })),
    h("label", {}, "Refresh token", h("input", { type: "password", name: "refresh_token", autocomplete: "new-password" }))];
  const staticFields = [field("Instance URL", "instance_url", { placeholder: "https://acme.my.salesforce.com" }),
    h("label", {}, "Access token", h("input", { type: "password", name: "access_token", autocomplete: "new-password" }))];
  const showKind = (kind) => {
    for (const f of oauthFields) f.hidden = kind !== "refresh_token";
    for (const f of staticFields) f.hidden = kind !== "static_session";
  };
  const kind = h("select", { name: "kind", onchange: (ev) => showKind(ev.target.value) },
    h("option", { value: "refresh_token" }, "OAuth refresh token"), h("option", { value: "static_session" }, "Static session"));
  showKind("refresh_token");
  const f = form({ id: "crm-form" }, [
    h("label", {}, "Environment", h("select", { name: "env" }, environments.map((e) => h("option", { value: e }, e)))),
    h("label", {}, "Kind", kind), ...oauthFields, ...staticFields,
  ], "Save CRM credentials", async (values) => {
    const names = values.get("kind") === "static_session" ? ["instance_url", "access_token"]
      : ["login_url", "client_id", "client_secret", "refresh_token"];
    const body = Object.fromEntries(names.map((n) => [n, values.get(n)]));
    try {
      await api("PUT", base + "/environments/" + encodeURIComponent(values.get("env")) + "/crm", body);
    } finally {
      for (const box of f.querySelectorAll("input[type=password]")) box.value = "";
    }
    await again();
  });
  return h("details", { class: "crm" }, h("summary", {}, "Set or replace CRM credentials"), f);
}

// Tool secrets: values that tool headers name as {"secret": NAME}; sealed, never read back.
function secretsSection(base, secrets, again) {
  const list = secrets.length
    ? table("secret-list", ["Name", "Set", ""], secrets, (x) => [
      h("code", {}, x.name), date(x.updated_at),
      confirmButton({ "data-secret": x.name }, "Delete",
        "Delete secret " + x.name + "? Tools naming it stop sending it.", async () => {
          await api("DELETE", base + "/secrets/" + encodeURIComponent(x.name));
          await again();
        })])
    : h("p", { class: "muted" }, "No tool secrets — a tool header {\"secret\": \"NAME\"} sends the value stored here.");
  const f = form({ id: "secret-form" }, [
    field("Name", "name", { required: true, placeholder: "docs_key" }),
    h("label", {}, "Value", h("input", { type: "password", name: "value", required: true, autocomplete: "new-password" })),
  ], "Save secret", async (values) => {
    try {
      await api("PUT", base + "/secrets/" + encodeURIComponent(values.get("name")), { value: values.get("value") });
    } finally {
      f.querySelector("input[name=value]").value = "";
    }
    await again();
  });
  return h("section", { class: "card", "aria-labelledby": "secret-title" },
    h("h2", { id: "secret-title" }, "Tool secrets"), list, f);
}
