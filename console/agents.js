// Agent pages (#/orgs/<id>/agents[/<agent>]): versions, deployments, grants, instances, spend.
import { api, confirmButton, date, field, form, h, money, show, table } from "./ui.js";

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

export async function showAgents(orgId) {
  const base = "/admin/v1/orgs/" + encodeURIComponent(orgId);
  const { agents } = await api("GET", base + "/agents");
  const list = agents.length
    ? table("agent-list", ["Id", "Name", "Latest version", "Deployed"], agents, (a) => [
      h("a", { href: "#/orgs/" + encodeURIComponent(orgId) + "/agents/" + encodeURIComponent(a.id) }, a.id),
      a.name, String(a.latest_version),
      a.deployments.length ? a.deployments.map((d) => d.env + " → v" + d.version).join(", ") : "nowhere"])
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

export async function showAgent(orgId, agentId) {
  const base = "/admin/v1/orgs/" + encodeURIComponent(orgId);
  const agentBase = base + "/agents/" + encodeURIComponent(agentId);
  const [agent, org, { tokens }, usage] = await Promise.all([
    api("GET", agentBase), api("GET", base), api("GET", base + "/tokens"), api("GET", base + "/usage")]);
  const latest = agent.versions[0];
  const again = () => showAgent(orgId, agentId);
  const tokenName = Object.fromEntries(tokens.map((t) => [t.id, t.name]));
  const spent = (usage.agents.find((a) => a.agent_id === agentId) || { spent_usd: 0 }).spent_usd;
  const limit = latest.config.monthly_spend_limit_usd;

  // The A2A card of each deployment: read with a credential, or by anyone (docs/a2a.md).
  const cardSwitch = (d) => h("button", {
    type: "button", class: "secondary", "data-a2a": d.env,
    onclick: async () => {
      await api("PUT", base + "/environments/" + encodeURIComponent(d.env) + "/agents/" +
        encodeURIComponent(agentId) + "/a2a", { discoverable: !d.a2a_discoverable });
      await again();
    },
  }, d.a2a_discoverable ? "Require a credential" : "Make public");
  const deployments = agent.deployments.length
    ? table("deployment-list", ["Environment", "Version", "A2A card", ""], agent.deployments, (d) => [
      d.env, "v" + d.version, d.a2a_discoverable ? "public" : "with a credential", cardSwitch(d)])
    : h("p", { class: "muted" }, "Not deployed — an agent answers only in environments it is deployed to.");

  const grants = agent.grants.length
    ? table("grant-list", ["Token", "Permissions", ""], agent.grants, (g) => [
      [(tokenName[g.token_id] || "?") + " ", h("code", {}, g.token_id)], g.permissions.join(", "),
      confirmButton({ "data-grant": g.token_id }, "Remove",
        "Remove the grant of token " + g.token_id + " on " + agentId + "?", async () => {
          await api("PUT", base + "/grants", { token_id: g.token_id, agent_id: agentId, permissions: [] });
          await again();
        })])
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
          // approve: deciding the agent's paused tool calls (docs/daemon.md, Tool approvals).
          h("label", {}, "Permissions", h("select", { name: "permissions" },
            h("option", { value: "chat" }, "chat"),
            h("option", { value: "chat,approve" }, "chat and approve"),
            h("option", { value: "approve" }, "approve"))),
        ], "Grant", async (values) => {
          await api("PUT", base + "/grants", {
            token_id: values.get("token_id"), agent_id: agentId, permissions: values.get("permissions").split(","),
          });
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
