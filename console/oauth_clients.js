// The org page's OAuth clients (docs/mcp.md, OAuth): machine clients of the built-in
// authorization server (Agentforce's MCP client, a connector), each acting as one API token in
// one environment. The secret is shown once, here; revoking deletes the client.
import { api, confirmButton, date, field, form, h, table } from "./ui.js";

export async function oauthClientsSection(base, environments, tokens, again) {
  const clientsPath = (env) => base + "/environments/" + encodeURIComponent(env) + "/oauth-clients";
  const clients = (await Promise.all(environments.map((e) => api("GET", clientsPath(e)))))
    .flatMap((listed) => listed.oauth_clients);
  const names = Object.fromEntries(tokens.map((t) => [t.id, t.name]));
  const issued = h("div", { id: "issued-oauth-client", "aria-live": "polite" });
  const list = clients.length
    ? table("oauth-client-list", ["Name", "Client id", "Environment", "Acts as token", "Created", ""], clients,
      (c) => [c.name, h("code", {}, c.client_id), c.env,
        h("span", {}, names[c.token_id] || "", " ", h("code", {}, c.token_id)), date(c.created_at),
        confirmButton({ "data-oauth-client": c.client_id }, "Revoke",
          "Revoke OAuth client " + c.name + " (" + c.client_id + ")? Its access tokens stop working within a second.",
          async () => {
            await api("DELETE", clientsPath(c.env) + "/" + encodeURIComponent(c.client_id));
            await again();
          })])
    : h("p", { class: "muted", id: "oauth-client-empty" },
      "No OAuth clients yet — register one below for an MCP client that speaks OAuth.");
  const live = tokens.filter((t) => !t.revoked);
  const f = form({ id: "oauth-client-form" }, [
    field("Name", "name", { required: true, placeholder: "Agentforce" }),
    h("label", {}, "Environment", h("select", { name: "env" }, environments.map((e) => h("option", { value: e }, e)))),
    h("label", {}, "Acts as token", h("select", { name: "token_id" },
      live.map((t) => h("option", { value: t.id }, t.name + " (" + t.id + ")")))),
  ], "Register client", async (values) => {
    const created = await api("POST", clientsPath(values.get("env")),
      { name: values.get("name"), token_id: values.get("token_id") });
    await again();
    showIssuedClient(created);
  });
  return h("section", { class: "card", "aria-labelledby": "oauth-title" },
    h("h2", { id: "oauth-title" }, "OAuth clients"),
    h("p", { class: "muted" }, "The MCP endpoint's token endpoint is /oauth/token (client credentials); " +
      "a client may call the agents its token has chat grants on."),
    issued, list, f);
}

// Shown once after registration, never fetched again.
function showIssuedClient(created) {
  const target = document.getElementById("issued-oauth-client");
  if (!target) return;
  target.replaceChildren(h("div", { class: "secret" },
    h("strong", {}, "Client " + created.name + ":"),
    h("p", {}, "client_id ", h("code", { id: "new-client-id" }, created.client_id)),
    h("p", {}, "client_secret ", h("code", { id: "new-client-secret" }, created.client_secret)),
    h("p", { class: "muted" }, "Store the secret now: it is shown only this once.")));
  target.scrollIntoView({ block: "center" });
}
