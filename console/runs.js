// An environment's runs (#/orgs/<id>/environments/<env>/runs): the calls waiting for a person's
// approval first, each with its arguments and Approve / Deny (docs/daemon.md, Tool approvals), then
// the latest runs, newest first, with their outcome; a queued, running or paused one can be
// canceled.
import { api, confirmButton, date, h, show, showError, table } from "./ui.js";

function outcome(run) {
  if (run.error) return run.error.code + ": " + run.error.message;
  if (run.result) return run.result.terminated_reason ? "stopped: " + run.result.terminated_reason
    : run.result.blocked ? "reply withheld" : "complete";
  return "";
}

// Every pending call of a paused run decided alike: approved, or denied with the operator's reason.
// The run goes on in the background; the list shows it running, then ended.
function decideButtons(base, run, again) {
  const decide = async (approve, reason) => {
    const decisions = run.pending_actions.map((a) => ({ call_id: a.call_id, approve, ...(reason ? { reason } : {}) }));
    await api("POST", base + "/" + encodeURIComponent(run.run_id) + "/approvals", { decisions, background: true });
    await again();
  };
  return h("span", { class: "decide" },
    h("button", {
      type: "button", "data-approve": run.run_id,
      onclick: async () => {
        if (!window.confirm("Run " + run.pending_actions.length + " call(s) of run " + run.run_id + "?")) return;
        try { await decide(true); } catch (e) { showError(e); }
      },
    }, "Approve"),
    " ",
    h("button", {
      type: "button", class: "danger", "data-deny": run.run_id,
      onclick: async () => {
        const reason = window.prompt("Why not? (the agent is told)", "");
        if (reason === null) return;
        try { await decide(false, reason); } catch (e) { showError(e); }
      },
    }, "Deny"));
}

function pendingSection(base, runs, again) {
  const paused = runs.filter((r) => r.status === "requires_action");
  if (!paused.length) return null;
  const rows = paused.flatMap((r) => r.pending_actions.map((a, i) => ({ run: r, action: a, first: i === 0 })));
  return h("section", { class: "card" },
    h("h2", {}, "Waiting for approval"),
    table("pending-list", ["Run", "Agent", "Tool", "Arguments", "Expires", ""], rows, (p) => [
      h("code", {}, p.run.run_id), p.run.agent_id, h("code", {}, p.action.tool),
      h("pre", { class: "arguments" }, JSON.stringify(p.action.arguments, null, 2)),
      date(p.run.expires_at),
      p.first ? decideButtons(base, p.run, again) : ""]));
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
      r.status === "queued" || r.status === "running" || r.status === "requires_action"
        ? confirmButton({ "data-cancel": r.run_id }, "Cancel", "Cancel run " + r.run_id + "?", async () => {
          await api("POST", base + "/" + encodeURIComponent(r.run_id) + "/cancel", {});
          await again();
        })
        : ""])
    : h("p", { class: "muted", id: "run-empty" }, "No runs in " + env + " yet: \"background\": true or a streamed invoke starts one.");
  show(
    h("p", {}, h("a", { href: "#/orgs/" + encodeURIComponent(orgId) }, "← Organization " + orgId)),
    h("h1", {}, "Runs of " + env),
    pendingSection(base, runs, again),
    h("section", { class: "card" }, h("p", {}, h("button", { type: "button", id: "refresh-runs", onclick: again }, "Refresh")), list));
}
