"""The operator console in a real browser (headless Chromium driven by Selenium, both from Debian):
sign in, set up an organization and a token, create, deploy and grant an agent, run a turn with the
token, make a new version, revoke the token, sign out; register a webhook and see its deliveries.
Screenshots of every page go to $AGENTGATE_TEST_OUTPUT/console (default build/test-output/console)."""
import json
import os
import pathlib
import shutil
import tempfile
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

import counterparts
import stores
from conftest import ADMIN_TOKEN
from daemon_harness import API_KEY, Tenant, config_for
from fakes.fake_llm import openai_text
from test_webhooks import Receiver

OUTPUT = pathlib.Path(os.environ.get("AGENTGATE_TEST_OUTPUT")
                      or pathlib.Path(__file__).parents[2] / "build" / "test-output") / "console" / stores.KIND


@pytest.fixture
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,800"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # Chromium leaves its singleton socket's directory in $TMPDIR when chromedriver stops it; a
    # short directory of the test's own (a socket path must stay under 108 bytes) is removed after.
    scratch = tempfile.mkdtemp(prefix="ag-chromium-")
    service = Service("/usr/bin/chromedriver", env={**os.environ, "TMPDIR": scratch})
    driver = webdriver.Chrome(service=service, options=options)
    driver.implicitly_wait(0)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()
    shutil.rmtree(scratch, ignore_errors=True)


def wait_for(driver, css, timeout=10):
    return WebDriverWait(driver, timeout).until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))


def wait_text(driver, css, text, timeout=10):
    WebDriverWait(driver, timeout).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, css), text))
    return driver.find_element(By.CSS_SELECTOR, css)


def fill(form, name, value):
    box = form.find_element(By.NAME, name)
    box.clear()
    box.send_keys(value)


def shot(driver, name):
    driver.save_screenshot(str(OUTPUT / f"{name}.png"))


def settled_spend(server, org="browser-org"):
    """The org's spend once unused leases went back (within 1 s, docs/governance.md)."""
    deadline = time.monotonic() + 3
    while True:
        usage = server.admin("GET", f"/orgs/{org}/usage")[2]
        if usage["total_reserved_usd"] == 0 or time.monotonic() > deadline:
            return usage["total_spent_usd"]
        time.sleep(0.05)


def set_value(browser, element, text):
    browser.execute_script("arguments[0].value = arguments[1]", element, text)


def invoke_body(server, token, body, agent="support"):
    status, _, answer = server.request("POST", f"/api/agents/{agent}/invoke", body,
                                       {"fl-api-org": "browser-org", "fl-api-env": "prod", "fl-api-token": token})
    assert status == 200, answer
    return answer


def invoke(server, token, agent="support"):
    return server.request("POST", f"/api/agents/{agent}/invoke", {"message": "What is agentgate?"},
                          {"fl-api-org": "browser-org", "fl-api-env": "prod", "fl-api-token": token})[0]


def test_an_operator_sets_up_an_org_and_an_agent_runs_a_turn_and_revokes_the_token(start_server, llm, browser):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": "sk-test"})  # a priced model
    base = f"http://{server.host}:{server.port}"
    browser.get(base + "/console/")
    signin = wait_for(browser, "#signin-form")
    assert not browser.find_element(By.ID, "nav").is_displayed()  # nowhere to go before signing in
    shot(browser, "01-sign-in")
    # The tab shows the console's icon; nothing the page loads is missing (no favicon 404).
    missing = [e for e in browser.get_log("browser") if "404" in e["message"]]
    assert not missing, missing
    fill(signin, "admin_token", "not-the-admin-token-at-all")
    signin.submit()
    assert "refused" in wait_for(browser, "#signin-form .error").text
    fill(signin, "admin_token", ADMIN_TOKEN)
    signin.submit()
    wait_text(browser, "#spend-list", "Demo organization")  # the overview comes first
    browser.find_element(By.LINK_TEXT, "Organizations").click()
    wait_text(browser, "#org-list", "demo")
    shot(browser, "02-organizations")

    org_form = browser.find_element(By.ID, "org-form")
    fill(org_form, "name", "Browser Org")
    fill(org_form, "id", "browser-org")
    fill(org_form, "limit", "25")
    org_form.submit()
    wait_text(browser, "h1", "Browser Org")
    assert browser.find_element(By.ID, "org-limit").text == "$25.00"
    assert "No environments yet" in browser.find_element(By.CSS_SELECTOR, "main").text

    env_form = browser.find_element(By.ID, "env-form")
    fill(env_form, "name", "Prod!")
    env_form.submit()
    assert "'name'" in wait_for(browser, "#env-form .error").text  # the API's 400 names the field
    fill(env_form, "name", "prod")
    env_form.submit()
    wait_text(browser, "#env-list", "no CRM credentials")

    # CRM credentials: set once, described afterwards, never shown back.
    browser.find_element(By.CSS_SELECTOR, "details.crm summary").click()
    crm_form = browser.find_element(By.ID, "crm-form")
    secrets = {"client_secret": "console-secret-" + os.urandom(6).hex(), "refresh_token": "5Aep-" + os.urandom(8).hex()}
    fill(crm_form, "login_url", "https://login.example.com")
    fill(crm_form, "client_id", "3MVG9-console")
    for name, value in secrets.items():
        fill(crm_form, name, value)
    crm_form.submit()
    wait_text(browser, "#env-list", "OAuth refresh token at https://login.example.com")
    assert "not refreshed since" in browser.find_element(By.CSS_SELECTOR, "#env-list li[data-env=prod]").text
    for value in secrets.values():
        assert value not in browser.page_source

    token_form = browser.find_element(By.ID, "token-form")
    fill(token_form, "name", "backend")
    token_form.find_element(By.CSS_SELECTOR, "input[type=checkbox][value=prod]").click()
    token_form.submit()
    token = wait_for(browser, "#new-token-value").text
    assert token.startswith("agt_")
    # Its API key for the environment it may use, for an OpenAI SDK (docs/openai.md).
    keys = browser.find_elements(By.CSS_SELECTOR, "#issued-token code.api-key")
    assert [(k.get_attribute("data-env"), k.text) for k in keys] == [("prod", f"agk_browser-org.prod.{token}")]
    wait_text(browser, "#token-list", "backend")
    shot(browser, "03-organization-token-issued")

    # A tool secret: stored sealed, listed by name only, deleted after a confirmation.
    secret_form = browser.find_element(By.ID, "secret-form")
    secret_value = "Bearer docs-" + os.urandom(8).hex()
    fill(secret_form, "name", "docs_key")
    fill(secret_form, "value", secret_value)
    secret_form.submit()
    wait_text(browser, "#secret-list", "docs_key")
    assert secret_value not in browser.page_source
    browser.find_element(By.CSS_SELECTOR, "button[data-secret=docs_key]").click()
    browser.switch_to.alert.accept()
    wait_text(browser, "main", "No tool secrets")
    assert server.admin("GET", "/orgs/browser-org/secrets")[2]["secrets"] == []

    # An agent, created, deployed to prod and granted to that token in the console, answers it.
    browser.find_element(By.ID, "agents-link").click()
    # The organization's page is still up until the agents' page replaces it: wait for its text.
    wait_text(browser, "main", "No agents yet")
    agent_form = wait_for(browser, "#agent-form")
    fill(agent_form, "id", "support")
    template = json.loads(agent_form.find_element(By.NAME, "config").get_attribute("value"))
    assert template["model"]["provider"] == "offline"
    template["model"] = {"provider": "fake-openai", "name": "gpt-test"}
    set_value(browser, agent_form.find_element(By.NAME, "config"), json.dumps(template, indent=2))
    agent_form.submit()
    wait_text(browser, "h1", "Support bot")
    assert "Not deployed" in browser.find_element(By.CSS_SELECTOR, "main").text
    browser.find_element(By.ID, "deploy-form").submit()  # prod, v1: the only choices
    wait_text(browser, "#deployment-list", "prod")
    browser.find_element(By.ID, "grant-form").submit()  # the only live token
    wait_text(browser, "#grant-list", "backend")
    assert invoke(server, token, "support") == 200
    conversation = invoke_body(server, token, {"message": "What is agentgate?", "stateful": True})["conversation_id"]
    spent = settled_spend(server)
    assert spent > 0
    browser.refresh()
    wait_text(browser, "#agent-spend", f"${spent:.2f} of unlimited")

    # A new version from an edited copy: the API's error names the field; a good edit is v2.
    version_form = browser.find_element(By.ID, "version-form")
    editor = version_form.find_element(By.NAME, "config")
    config = editor.get_attribute("value")
    set_value(browser, editor, config.replace('"fake-openai"', '"no-such-provider"'))
    version_form.submit()
    assert "config.model.provider" in wait_for(browser, "#version-form .error").text
    # v2 withholds any reply that names the product (the fake model echoes the question).
    edited = config.replace("Support bot", "Support bot 2")
    edited = edited[:edited.rindex("}")] + ', "safety": {"block_patterns": ["(?i)agentgate"]}}'
    set_value(browser, editor, edited)
    version_form.submit()
    wait_text(browser, "#version-list", "v2")
    wait_text(browser, "h1", "Support bot 2")
    browser.find_element(By.ID, "deploy-form").submit()  # prod, v2: the newest is preselected
    wait_text(browser, "#deployment-list", "v2")
    # Its A2A card is read with a credential until the operator makes it public (docs/a2a.md).
    card_path = "/a2a/browser-org/prod/support/.well-known/agent-card.json"
    assert server.request("GET", card_path)[0] == 401
    browser.find_element(By.CSS_SELECTOR, "#deployment-list [data-a2a='prod']").click()
    wait_text(browser, "#deployment-list", "public")
    status, _, card = server.request("GET", card_path)
    assert status == 200 and card["name"] == "Support bot 2", card
    browser.find_element(By.CSS_SELECTOR, "#deployment-list [data-a2a='prod']").click()
    wait_text(browser, "#deployment-list", "with a credential")
    assert server.request("GET", card_path)[0] == 401
    blocked = invoke_body(server, token, {"message": "What is agentgate?", "stateful": True, "conversation_id": conversation})
    assert blocked["blocked"] is True
    shot(browser, "04-agent")
    browser.find_element(By.LINK_TEXT, "← Agents of browser-org").click()
    wait_text(browser, "#agent-list", "prod → v2")
    shot(browser, "05-agents")
    browser.get(base + "/console/#/orgs/browser-org")
    wait_for(browser, "#conversations-link").click()
    wait_text(browser, "#conversation-list", conversation)
    row = browser.find_element(By.CSS_SELECTOR, "#conversation-list tbody tr").text
    assert "support" in row and "prod" in row
    shot(browser, "06-conversations")
    browser.find_element(By.LINK_TEXT, conversation).click()
    wait_for(browser, "#chat")
    turns = browser.find_elements(By.CSS_SELECTOR, "article.turn")
    assert len(turns) == 2 and "complete" in turns[0].text and "reply withheld" in turns[1].text
    turn_cost = turns[0].find_element(By.CLASS_NAME, "turn-cost").text
    assert turn_cost.startswith("$") and turn_cost != "$0.00"
    bubbles = browser.find_elements(By.CSS_SELECTOR, "#chat .bubble.assistant")
    assert "withheld" not in bubbles[0].text and "withheld by the safety policy" in bubbles[1].text
    turns[0].find_element(By.TAG_NAME, "summary").click()
    assert "model call 1:" in turns[0].text and "echo: What is agentgate?" in turns[0].text
    shot(browser, "07-transcript")
    # The search finds it by agent and day.
    browser.get(base + "/console/#/orgs/browser-org/conversations?agent=support&since=2000-01-01")
    wait_text(browser, "#conversation-list", conversation)
    browser.get(base + "/console/#/orgs/browser-org")
    wait_text(browser, "#token-list", "backend")
    token_id = server.admin("GET", "/orgs/browser-org/tokens")[2]["tokens"][0]["id"]

    # The admin token is nowhere the page's scripts can reach, nor in the address bar.
    kept = browser.execute_script(
        "return JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.cookie")
    assert ADMIN_TOKEN not in kept and "agentgate_console" not in kept  # HttpOnly
    assert ADMIN_TOKEN not in browser.current_url

    # Revoke, with confirmation; the next invoke is refused.
    browser.find_element(By.CSS_SELECTOR, f"button[data-token='{token_id}']").click()
    browser.switch_to.alert.dismiss()
    assert invoke(server, token) == 200  # dismissed: nothing revoked
    browser.find_element(By.CSS_SELECTOR, f"button[data-token='{token_id}']").click()
    browser.switch_to.alert.accept()
    wait_text(browser, "#token-list", "revoked")
    assert invoke(server, token) == 401

    # The overview shows the org's spend (these turns' cost) and charts the turns by stop reason.
    total = settled_spend(server)
    browser.get_log("browser")  # drop what came before (the refused sign-in's 401)
    browser.find_element(By.LINK_TEXT, "Overview").click()
    wait_text(browser, "#spend-list", "Browser Org")
    row = [r for r in browser.find_elements(By.CSS_SELECTOR, "#spend-list tbody tr") if "Browser Org" in r.text][0]
    assert row.find_element(By.CLASS_NAME, "org-spent").text == f"${total:.2f}"
    assert browser.find_elements(By.CSS_SELECTOR, "#turns-chart canvas")
    legend = browser.find_element(By.CSS_SELECTOR, "#turns-chart .u-legend").text
    assert "complete" in legend
    assert "p50" in browser.find_element(By.ID, "durations").text
    shot(browser, "08-overview")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors  # no script error, no resource the page's CSP refused

    browser.set_window_size(390, 844)
    shot(browser, "09-organization-phone")
    browser.set_window_size(1280, 800)

    browser.find_element(By.ID, "sign-out").click()
    wait_text(browser, "main", "You are signed out")
    shot(browser, "10-signed-out")
    browser.get(base + "/console/#/orgs/browser-org")
    wait_for(browser, "#signin-form")  # a reload after sign-out asks for the token again


def test_the_console_is_keyboard_navigable(server, browser):
    from selenium.webdriver.common.keys import Keys
    browser.get(f"http://{server.host}:{server.port}/console/")
    wait_for(browser, "#signin-form")
    active = browser.switch_to.active_element
    for _ in range(5):
        if active.get_attribute("name") == "admin_token":
            break
        active.send_keys(Keys.TAB)
        active = browser.switch_to.active_element
    assert active.get_attribute("name") == "admin_token"
    active.send_keys(ADMIN_TOKEN + Keys.ENTER)
    link = wait_for(browser, "#spend-list a")
    link.send_keys(Keys.ENTER)
    wait_text(browser, "h1", "Demo")
    shot(browser, "11-keyboard-org")


def test_a_server_the_first_call_cannot_reach_is_said_so_and_can_be_tried_again(server, browser):
    # The page's first call (GET /console/session) is refused by the browser itself, as a server
    # that went away or a proxy that blocks it would: the page must say so, not stay at "Loading…".
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/console/session"]})
    browser.get(f"http://{server.host}:{server.port}/console/")
    alert = wait_for(browser, "main [role=alert]")
    assert "could not reach the agentgate server" in alert.text
    assert not browser.find_element(By.ID, "nav").is_displayed()  # not signed in: no navigation
    assert "Loading" not in browser.find_element(By.CSS_SELECTOR, "main").text
    shot(browser, "12-server-unreachable")
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    browser.find_element(By.ID, "retry").click()
    wait_for(browser, "#signin-form")  # tried again, it reaches the server


def open_org_page(browser, server, org):
    """Signs in and opens the organization's page."""
    browser.get(f"http://{server.host}:{server.port}/console/")
    signin = wait_for(browser, "#signin-form")
    fill(signin, "admin_token", ADMIN_TOKEN)
    signin.submit()
    wait_for(browser, "#spend-list")
    browser.get(f"http://{server.host}:{server.port}/console/#/orgs/{org}")
    wait_for(browser, "#env-list")


def open_environment_page(browser, server, org, link):
    """Signs in, opens the organization and follows its prod environment's `link`."""
    open_org_page(browser, server, org)
    browser.find_element(By.LINK_TEXT, link).click()


def test_an_operator_registers_a_webhook_and_sees_its_deliveries(start_server, llm, browser):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY,
                                                "AGENTGATE_WEBHOOKS_ALLOW_PRIVATE": "true",
                                                "AGENTGATE_WEBHOOKS_FIRST_RETRY_MILLISECONDS": "200"})
    tenant = Tenant(server, org="hooks-org")
    tenant.agent("bot")
    open_environment_page(browser, server, "hooks-org", "webhooks")
    wait_text(browser, "h1", "Webhooks of prod")
    assert "No webhooks in prod yet" in browser.find_element(By.ID, "webhook-empty").text

    hook_form = browser.find_element(By.ID, "webhook-form")
    fill(hook_form, "url", "ftp://nowhere")
    hook_form.submit()
    assert "'url'" in wait_for(browser, "#webhook-form .error").text  # the API's 400 names the field
    port = counterparts.free_port()
    fill(hook_form, "url", f"http://127.0.0.1:{port}/hook")
    hook_form.submit()
    secret = wait_for(browser, "#webhook-secret").text
    assert secret.startswith("whsec_")
    receiver = Receiver(port, secret, answers="500,200")
    try:
        llm.push(openai_text("Done."))
        status, _, queued = server.request("POST", "/api/agents/bot/invoke",
                                           {"message": "hi", "background": True},
                                           {"fl-api-org": "hooks-org", "fl-api-env": "prod",
                                            "fl-api-token": tenant.token})
        assert status == 202, queued
        seen = receiver.wait(2)
        assert all(s["verified"] for s in seen) and seen[-1]["status"] == 200
        time.sleep(0.3)
        browser.refresh()
        cell = wait_text(browser, ".delivery-status", "delivered")
        row = cell.find_element(By.XPATH, "..").text
        assert queued["run_id"] in row and "run.completed" in row and "2 (last: HTTP 200)" in row
        assert secret not in browser.find_element(By.CSS_SELECTOR, "main").text  # shown once only
        shot(browser, "12-webhooks")
    finally:
        receiver.close()


def test_an_operator_sees_an_environments_runs_and_cancels_a_running_one(start_server, llm, browser):
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server, org="runs-org")
    tenant.agent("bot")
    headers = {"fl-api-org": "runs-org", "fl-api-env": "prod", "fl-api-token": tenant.token}
    llm.push(openai_text("Quick."))
    _, _, done = server.request("POST", "/api/agents/bot/invoke", {"message": "hi", "background": True}, headers)
    deadline = time.monotonic() + 5
    while server.request("GET", f"/api/runs/{done['run_id']}", headers=headers)[2]["status"] != "completed":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    llm.push(dict(openai_text("Too slow."), delay=30))
    _, _, slow = server.request("POST", "/api/agents/bot/invoke", {"message": "slow", "background": True}, headers)
    open_environment_page(browser, server, "runs-org", "runs")
    wait_text(browser, "h1", "Runs of prod")
    deadline = time.monotonic() + 5
    while "running" not in browser.find_element(By.ID, "run-list").text:
        assert time.monotonic() < deadline, browser.find_element(By.ID, "run-list").text
        browser.find_element(By.ID, "refresh-runs").click()
        time.sleep(0.1)
    rows = browser.find_elements(By.CSS_SELECTOR, "#run-list tbody tr")
    assert slow["run_id"] in rows[0].text and done["run_id"] in rows[1].text  # newest first
    assert "completed" in rows[1].text and "complete" in rows[1].text
    assert not rows[1].find_elements(By.CSS_SELECTOR, "button")  # an ended run has no cancel
    shot(browser, "13-runs")
    rows[0].find_element(By.CSS_SELECTOR, f"button[data-cancel='{slow['run_id']}']").click()
    browser.switch_to.alert.accept()
    wait_text(browser, "#run-list tbody tr:first-child .run-status", "canceled")
    assert server.request("GET", f"/api/runs/{slow['run_id']}", headers=headers)[2]["status"] == "canceled"


def test_an_operator_sees_a_pending_action_with_its_arguments_and_approves_it(start_server, llm, browser):
    from fakes.fake_llm import FakeToolServer, openai_tools
    tools = FakeToolServer()
    try:
        server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
        tenant = Tenant(server, org="approvals-org")
        tenant.agent("shop", tools=[{"type": "http", "name": "refund", "description": "Refund an order",
                                     "parameters": {"type": "object"}, "method": "POST",
                                     "url": f"http://127.0.0.1:{tools.port}/refund", "approval": "always"}])
        llm.push(openai_tools([("refund", {"order": "A-1", "amount": 40})]), openai_text("Refunded."))
        headers = {"fl-api-org": "approvals-org", "fl-api-env": "prod", "fl-api-token": tenant.token}
        _, _, paused = server.request("POST", "/api/agents/shop/invoke", {"message": "refund A-1"}, headers)
        assert paused["terminated_reason"] == "approval_required", paused
        open_environment_page(browser, server, "approvals-org", "runs")
        wait_text(browser, "h2", "Waiting for approval")
        row = browser.find_element(By.CSS_SELECTOR, "#pending-list tbody tr")
        assert paused["run_id"] in row.text and "refund" in row.text
        box = row.find_element(By.CSS_SELECTOR, "textarea.arguments")
        assert '"amount": 40' in box.get_attribute("value")
        shot(browser, "14-approvals")
        # The operator approves with the amount edited: the tool gets the edited arguments.
        box.clear()
        box.send_keys('{"order": "A-1", "amount": 30}')
        row.find_element(By.CSS_SELECTOR, f"button[data-approve='{paused['run_id']}']").click()
        browser.switch_to.alert.accept()
        deadline = time.monotonic() + 10
        while server.request("GET", f"/api/runs/{paused['run_id']}", headers=headers)[2]["status"] != "completed":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert [c["path"] for c in tools.calls] == ["/refund"]
        assert json.loads(tools.calls[0]["body"]) == {"order": "A-1", "amount": 30}
        # The approval's answer re-renders the page: the button found may be replaced before the
        # click lands (StaleElementReference, seen once in CI); find it again until one is taken.
        WebDriverWait(browser, 10, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda driver: driver.find_element(By.ID, "refresh-runs").click() or True)
        wait_text(browser, "#run-list tbody tr:first-child .run-status", "completed")
        assert not browser.find_elements(By.ID, "pending-list")
    finally:
        tools.close()


def test_an_operator_grants_and_revokes_a_tokens_metadata_gateway_access(server, browser):
    tenant = Tenant(server, org="gateway-org")
    gateway = {"content-type": "application/json", "fl-api-org": "gateway-org", "fl-api-env": "prod",
               "fl-api-token": tenant.token}

    def gateway_code():
        return server.request("POST", "/api/metadata-gateway", {"method": "GET", "path": "sobjects"}, gateway)[2]["error"]["code"]

    assert gateway_code() == "FL07"  # a new token has no access
    open_org_page(browser, server, "gateway-org")
    wait_text(browser, "#gateway-title", "Metadata gateway access")
    grant_form = wait_for(browser, "#gateway-grant-form")
    Select(grant_form.find_element(By.NAME, "token_id")).select_by_value(tenant.token_id)
    Select(grant_form.find_element(By.NAME, "permission")).select_by_value("metadata_read")
    grant_form.submit()
    row = wait_text(browser, "#gateway-grant-list", "metadata_read")
    assert tenant.token_id in row.text and "prod" in row.text
    assert gateway_code() == "FL05"  # granted: what stops it now is that prod has no CRM credentials
    browser.execute_script("document.getElementById('gateway-title').scrollIntoView()")
    shot(browser, "14-gateway-grants")
    browser.find_element(By.CSS_SELECTOR, f"button[data-grant='{tenant.token_id}@prod']").click()
    browser.switch_to.alert.accept()
    wait_text(browser, "#gateway-title + p", "No token may use the metadata gateway yet")
    assert gateway_code() == "FL07"


def test_an_operator_registers_an_oauth_client_sees_its_secret_once_and_revokes_it(server, browser):
    tenant = Tenant(server, org="oauth-org")

    def token_status(client_id, secret):
        form = f"grant_type=client_credentials&client_id={client_id}&client_secret={secret}"
        return server.request("POST", "/oauth/token", raw=form,
                              headers={"content-type": "application/x-www-form-urlencoded"})[0]

    open_org_page(browser, server, "oauth-org")
    wait_text(browser, "#oauth-title", "OAuth clients")
    register = wait_for(browser, "#oauth-client-form")
    fill(register, "name", "Agentforce")
    Select(register.find_element(By.NAME, "token_id")).select_by_value(tenant.token_id)
    register.submit()
    client_id = wait_for(browser, "#new-client-id").text
    secret = browser.find_element(By.ID, "new-client-secret").text
    assert client_id.startswith("agc_") and secret.startswith("agcs_")
    row = wait_text(browser, "#oauth-client-list", client_id)
    assert "Agentforce" in row.text and tenant.token_id in row.text and "prod" in row.text
    shot(browser, "15-oauth-clients")
    assert token_status(client_id, secret) == 200
    # Shown once: a reload lists the client, never its secret.
    browser.refresh()
    wait_text(browser, "#oauth-client-list", client_id)
    assert secret not in browser.page_source
    browser.find_element(By.CSS_SELECTOR, f"button[data-oauth-client='{client_id}']").click()
    browser.switch_to.alert.accept()
    wait_text(browser, "#oauth-client-empty", "No OAuth clients yet")
    assert token_status(client_id, secret) == 401


def test_an_operator_answers_the_models_question(start_server, llm, browser):
    from fakes.fake_llm import openai_tools
    server = start_server(config_for(llm), env={"FAKE_LLM_KEY": API_KEY})
    tenant = Tenant(server, org="questions-org")
    tenant.agent("desk", ask_user=True)
    llm.push(openai_tools([("ask_user", {"question": "Which order?"})]), openai_text("Refunding A-7."))
    headers = {"fl-api-org": "questions-org", "fl-api-env": "prod", "fl-api-token": tenant.token}
    _, _, paused = server.request("POST", "/api/agents/desk/invoke", {"message": "refund my order"}, headers)
    assert paused["terminated_reason"] == "input_required", paused
    open_environment_page(browser, server, "questions-org", "runs")
    wait_text(browser, "h2", "Waiting for approval")
    row = browser.find_element(By.CSS_SELECTOR, "#pending-list tbody tr")
    assert "Which order?" in row.find_element(By.CSS_SELECTOR, "p.question").text
    row.find_element(By.CSS_SELECTOR, "textarea.answer").send_keys("A-7")
    assert not row.find_elements(By.CSS_SELECTOR, "button[data-deny]")  # a question is answered, not denied
    row.find_element(By.CSS_SELECTOR, f"button[data-approve='{paused['run_id']}']").click()
    browser.switch_to.alert.accept()
    deadline = time.monotonic() + 10
    while server.request("GET", f"/api/runs/{paused['run_id']}", headers=headers)[2]["status"] != "completed":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    results = [m["content"] for m in llm.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert results == ["A-7"], results
