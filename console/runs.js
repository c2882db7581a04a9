// An environment's runs (#/orgs/<id>/environments/<env>/runs): the latest background and streamed
// runs, newest first, with their outcome; a queued or running one can be canceled.
import { api, confirmButton, date, h, show, table } from "./ui.js";

function outcome(run) {
  if (run.error) return run.error.code + ": " + run.error.message;
  if (run.result) return run.result.terminated_reason ? "stopped: " + run.result.terminated_reason
    : run.result.blocked ? "reply withheld" : "complete";
  return "";
}

export async function showRuns(orgId, env) {
  const base = "/admin/v1/orgs/" + encodeURIComponent(orgId) + "/environments/" + encodeURIComponent(env) + "/runs";
  const { runs } = await api("GET", base);
  const again = () => showRuns(orgId, env);
  const list = runs.length
    ? table("run-list", ["Run", "Agent", "Status", "Created", "Ended", "Outcome", ""], runs, (r) => [
      h("code", {}, r.run_id), r.agent_id,
      h("td", { class: "run-status" }, h("span", { class: r.status === "failed" || r.status === "canceled" ? "tag revoked" : "tag" }, r.status)),
      date(r.created_at), date(r.ended_at), outcome(r),
      r.status === "queued" || r.status === "running"
        ? confirmButton({ "data-cancel": r.run_id }, "Cancel", "Cancel run " + r.run_id + "?", async () => {
          await api("POST", base + "/" + encodeURIComponent(r.run_id) + "/cancel", {});
          await again();
        })
        : ""])
    : h("p", { class: "muted", id: "run-empty" }, "No runs in " + env + " yet: \"background\": true or a streamed invoke starts one.");
  show(
    h("p", {}, h("a", { href: "#/orgs/" + encodeURIComponent(orgId) }, "← Organization " + orgId)),
    h("h1", {}, "Runs of " + env),
    h("section", { class: "card" }, h("p", {}, h("button", { type: "button", id: "refresh-runs", onclick: again }, "Refresh")), list));
}
