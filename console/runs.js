// An environment's runs (#/orgs/<id>/environments/<env>/runs): what paused runs wait for first,
// each approval with its arguments (editable) and each question with a box for its answer, and
// Approve / Deny (docs/runs.md, "What a run needs"), then
// the latest runs, newest first, with their outcome; a queued, running or paused one can be
// canceled.
import { api, confirmButton, date, h, show, showError, table } from "./ui.js";

function outcome(run) {
  if (run.error) return run.error.code + ": " + run.error.message;
  if (run.result) return run.result.terminated_reason ? "stopped: " + run.result.terminated_reason
    : run.result.blocked ? "reply withheld" : "complete";
  return "";
}

// What a paused run waits for, met in one request (docs/runs.md, "What a run needs"): every
// approval approved (with the arguments as edited in its box) or denied with the operator's reason,
// and every question answered from its box. The run goes on in the background; the list shows it
// running, then ended.
function needsOf(run) {
  const decisions = [];
  const answers = [];
  for (const a of run.pending_actions) {
    const box = document.querySelector(`[data-need='${a.call_id}'][data-run='${run.run_id}']`);
    const text = box ? box.value : "";
    if (a.kind === "question") {
      // Under an answer schema the answer is JSON; else it is the text as written.
      answers.push({ call_id: a.call_id, answer: a.answer_schema ? JSON.parse(text) : text });
    } else {
      const edited = JSON.parse(text);
      const same = JSON.stringify(edited) === JSON.stringify(a.arguments);
      decisions.push({ call_id: a.call_id, ...(same ? {} : { arguments: edited }) });
    }
  }
  return { decisions, answers };
}

function decideButtons(base, run, again) {
  const decide = async (approve, reason) => {
    const { decisions, answers } = needsOf(run);
    const body = { background: true };
    if (decisions.length) {
      body.decisions = decisions.map((d) => approve ? { ...d, approve }
        : { call_id: d.call_id, approve, ...(reason ? { reason } : {}) });
    }
    if (answers.length) body.answers = answers;
    await api("POST", base + "/" + encodeURIComponent(run.run_id) + "/approvals", body);
    await again();
  };
  const approvals = run.pending_actions.filter((a) => a.kind !== "question").length;
  return h("span", { class: "decide" },
    h("button", {
      type: "button", "data-approve": run.run_id,
      onclick: async () => {
        if (!window.confirm("Go on with run " + run.run_id + " (" + approvals + " call(s) approved)?")) return;
        try { await decide(true); } catch (e) { showError(e); }
      },
    }, approvals ? "Approve" : "Answer"),
    approvals ? " " : "",
    approvals ? h("button", {
      type: "button", class: "danger", "data-deny": run.run_id,
      onclick: async () => {
        const reason = window.prompt("Why not? (the agent is told)", "");
        if (reason === null) return;
        try { await decide(false, reason); } catch (e) { showError(e); }
      },
    }, "Deny") : "");
}

// A need's box: an approval's arguments, editable; a question with its answer's box.
function needBox(run, action) {
  if (action.kind === "question") {
    return h("span", {},
      h("p", { class: "question" }, action.question),
      action.answer_schema ? h("pre", { class: "arguments" }, JSON.stringify(action.answer_schema, null, 2)) : "",
      h("textarea", { class: "answer", rows: 3, "data-need": action.call_id, "data-run": run.run_id,
        placeholder: action.answer_schema ? "The answer, as JSON" : "The answer" }));
  }
  const box = h("textarea", { class: "arguments", rows: 6, "data-need": action.call_id, "data-run": run.run_id });
  box.value = JSON.stringify(action.arguments, null, 2);
  return box;
}

function pendingSection(base, runs, again) {
  const paused = runs.filter((r) => r.status === "requires_action");
  if (!paused.length) return null;
  const rows = paused.flatMap((r) => r.pending_actions.map((a, i) => ({ run: r, action: a, first: i === 0 })));
  return h("section", { class: "card" },
    h("h2", {}, "Waiting for approval"),
    table("pending-list", ["Run", "Agent", "Tool", "Arguments or question", "Expires", ""], rows, (p) => [
      h("code", {}, p.run.run_id), p.run.agent_id, h("code", {}, p.action.tool),
      needBox(p.run, p.action),
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
