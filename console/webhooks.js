// An environment's webhooks (#/orgs/<id>/environments/<env>/webhooks): register one (its signing
// secret is shown once), remove one, and see each one's latest deliveries with their attempts.
import { api, confirmButton, date, field, form, h, show, table } from "./ui.js";

const EVENTS = ["run.completed", "run.failed", "run.canceled"];

function attemptsCell(delivery) {
  const last = delivery.attempts[delivery.attempts.length - 1];
  const said = last ? (last.status ? "HTTP " + last.status : "no answer") + (last.error ? " — " + last.error : "") : "not tried yet";
  return delivery.attempts.length + " (last: " + said + ")";
}

function deliveryList(webhook, deliveries) {
  if (!deliveries.length) return h("p", { class: "muted" }, "No deliveries yet: a background run's end sends one.");
  return table("deliveries-" + webhook.id, ["Delivery", "Run", "Event", "Status", "Attempts", "Next attempt"],
    deliveries, (d) => [h("code", {}, d.id), h("code", {}, d.run_id), d.type,
      h("td", { class: "delivery-status" }, h("span", { class: d.status === "failed" ? "tag revoked" : "tag" }, d.status)),
      attemptsCell(d), d.next_attempt_at ? date(d.next_attempt_at) : ""]);
}

export async function showWebhooks(orgId, env) {
  const base = "/admin/v1/orgs/" + encodeURIComponent(orgId) + "/environments/" + encodeURIComponent(env) + "/webhooks";
  const { webhooks } = await api("GET", base);
  const deliveries = await Promise.all(webhooks.map((w) => api("GET", base + "/" + encodeURIComponent(w.id) + "/deliveries")));
  const issued = h("div", { id: "issued-secret", "aria-live": "polite" });
  const again = () => showWebhooks(orgId, env);

  const cards = webhooks.map((w, i) => h("section", { class: "card webhook", "data-webhook": w.id },
    h("h2", {}, h("code", {}, w.url)),
    h("p", { class: "muted" }, w.events.join(", ") + " · registered " + date(w.created_at) + " · ", h("code", {}, w.id)),
    deliveryList(w, deliveries[i].deliveries),
    confirmButton({ "data-delete": w.id }, "Remove", "Remove this webhook and its deliveries?", async () => {
      await api("DELETE", base + "/" + encodeURIComponent(w.id));
      await again();
    })));

  const register = form({ id: "webhook-form" }, [
    field("URL", "url", { required: true, placeholder: "https://hooks.example.com/agentgate" }),
    h("fieldset", {}, h("legend", {}, "Events"), EVENTS.map((e) => h("label", { class: "inline" },
      h("input", { type: "checkbox", name: "events", value: e, checked: true }), " " + e))),
  ], "Register webhook", async (values) => {
    const events = values.getAll("events");
    const created = await api("POST", base, { url: values.get("url"), events });
    await again();
    document.getElementById("issued-secret").replaceChildren(h("div", { class: "note" },
      h("p", {}, "Signing secret of ", h("code", {}, created.id), " — copy it now, it is not shown again:"),
      h("code", { id: "webhook-secret" }, created.secret)));
  });

  show(
    h("p", {}, h("a", { href: "#/orgs/" + encodeURIComponent(orgId) }, "← Organization " + orgId)),
    h("h1", {}, "Webhooks of " + env),
    h("section", { class: "card" }, h("h2", {}, "Register a webhook"),
      h("p", { class: "muted" }, "Each background run's end is POSTed to it, signed as Standard Webhooks."),
      register, issued),
    webhooks.length ? cards : h("p", { class: "muted", id: "webhook-empty" }, "No webhooks in " + env + " yet."));
}
