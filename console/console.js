// agentgate operator console: sign-in, sign-out and the hash routes. The pages are modules of their
// own (overview.js, orgs.js, agents.js, conversations.js, runs.js, webhooks.js) over the shared ui.js. Everything the
// console does is also a curl call (README).
import { showAgent, showAgents } from "./agents.js";
import { showConversation, showConversations } from "./conversations.js";
import { showRuns } from "./runs.js";
import { showWebhooks } from "./webhooks.js";
import { showOrg, showOrgs } from "./orgs.js";
import { showOverview } from "./overview.js";
import { api, form, h, onSessionEnded, setSession, show, showError, signedIn } from "./ui.js";

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
        setSession(session.csrf_token);
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
    setSession(null);
    showSignIn("You are signed out.");
  }
}

async function route() {
  if (!signedIn()) return;
  const [path, search] = location.hash.replace(/^#\/?/, "").split("?");
  const parts = path.split("/").map(decodeURIComponent);
  const query = new URLSearchParams(search || "");
  try {
    if (parts[0] === "orgs" && parts[1] && parts[2] === "environments" && parts[3] && parts[4] === "webhooks") await showWebhooks(parts[1], parts[3]);
    else if (parts[0] === "orgs" && parts[1] && parts[2] === "environments" && parts[3] && parts[4] === "runs") await showRuns(parts[1], parts[3]);
    else if (parts[0] === "orgs" && parts[1] && parts[2] === "conversations" && parts[3]) await showConversation(parts[1], parts[3]);
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

// The first look at the session: a server that cannot be reached, or answers something else than
// the console expects, is said so on the page (with a way to try again), not left at "Loading…".
async function start() {
  let session;
  try {
    const res = await fetch("/console/session", { credentials: "same-origin" });
    if (!res.ok) throw new Error("the server answered HTTP " + res.status + " to /console/session");
    session = await res.json();
  } catch (e) {
    showError(new Error("The console could not reach the agentgate server: " + e.message), start);
    return;
  }
  if (!session.admin_api_enabled) return showAdminDisabled();
  if (!session.signed_in) return showSignIn();
  setSession(session.csrf_token);
  document.getElementById("nav").hidden = false;
  await route();
}

onSessionEnded(showSignIn);
document.getElementById("sign-out").addEventListener("click", signOut);
window.addEventListener("hashchange", route);
start();
