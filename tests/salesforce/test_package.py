"""The Salesforce package against the contract: the action's labels are the source's, and the fields it
sends and reads are the flow endpoint's (as documented in docs/openapi.json)."""
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLASS = (ROOT / "salesforce/force-app/main/default/classes/InvokeAgentDaemon.cls").read_text()
OPENAPI = json.loads((ROOT / "docs/openapi.json").read_text())

READER = (ROOT / "salesforce/force-app/main/default/classes/ReadAgentOutputField.cls").read_text()

INPUT_LABELS = ["Agent External Id", "Message", "Stateful", "Conversation Id", "Host Context JSON", "Group Key",
                "Idempotency Key", "Additional Instructions", "If Busy", "Output Schema JSON"]
OUTPUT_LABELS = ["Response", "Conversation Id", "Is Complete", "Stopped Because", "Blocked", "Output JSON", "Run Id",
                 "Pending Actions JSON"]


def inner_class(name, source=CLASS):
    start = source.index(f"public class {name} {{")
    depth, i = 0, source.index("{", start)
    for j in range(i, len(source)):
        depth += {"{": 1, "}": -1}.get(source[j], 0)
        if depth == 0:
            return source[i:j]
    raise AssertionError(name)


def variables(block):
    """(label, field name) of each @InvocableVariable, in order."""
    return re.findall(r"@InvocableVariable\(label='([^']*)'.*?\)\s*public \w+ (\w+);", block, re.S)


def test_the_action_is_labelled_as_in_the_source():
    assert re.search(r"@InvocableMethod\(\s*label='Invoke Agent \(Daemon\)'", CLASS)
    assert "category='Agent Platform'" in CLASS and "callout=true" in CLASS
    assert [label for label, _ in variables(inner_class("Request"))] == INPUT_LABELS
    assert [label for label, _ in variables(inner_class("Result"))] == OUTPUT_LABELS
    required = re.findall(r"@InvocableVariable\(label='([^']*)'[^\n]*required=true", inner_class("Request"))
    assert required == ["Agent External Id", "Message"]


def test_the_fields_sent_and_read_are_the_endpoints():
    request_schema = OPENAPI["components"]["schemas"]["FlowInvokeRequest"]["properties"]
    response_schema = OPENAPI["components"]["schemas"]["FlowInvokeResponse"]["properties"]
    sent = re.findall(r"body\.put\('(\w+)'", CLASS)
    read = re.findall(r"out\.get\('(\w+)'\)", CLASS)
    assert set(sent) <= set(request_schema) and set(request_schema) - set(sent) == {"instanceId"}
    assert set(read) == set(response_schema)
    # Each input field carries the value of the variable of the same name.
    fields = [name for _, name in variables(inner_class("Request"))]
    assert set(fields) == set(sent)
    assert [name for _, name in variables(inner_class("Result"))] == ["response", "conversationId", "isComplete",
                                                                     "stoppedBecause", "blocked", "outputJson",
                                                                     "runId", "pendingActionsJson"]
    assert "callout:Agentgate/api/flow-actions/invoke-agent" in CLASS
    assert "/api/flow-actions/invoke-agent" in OPENAPI["paths"]


def test_no_secret_lives_in_the_package():
    for f in (ROOT / "salesforce").rglob("*"):
        if f.is_file():
            text = f.read_text()
            assert "agt_" not in text, f
    credential = (ROOT / "salesforce/force-app/main/default/externalCredentials/Agentgate.externalCredential-meta.xml").read_text()
    for header, parameter in (("fl-api-org", "Org"), ("fl-api-token", "Token"), ("fl-api-env", "Env")):
        assert f"<parameterName>{header}</parameterName>" in credential
        assert "{!$Credential.Agentgate." + parameter + "}" in credential


def test_the_apex_test_covers_every_fault_status():
    test_class = (ROOT / "salesforce/force-app/main/default/classes/InvokeAgentDaemonTest.cls").read_text()
    for status in (400, 401, 402, 403, 404, 409, 429, 504):
        assert f"{status} => '{status}: " in test_class
    for name in ("returnsACompleteReply", "continuesAStatefulConversation", "reportsAStopReason", "reportsABlockedReply",
                 "reportsThePausedRunAndWhatItWaitsFor"):
        assert f"static void {name}()" in test_class


def test_the_field_reader_is_an_action_of_its_own_with_text_number_and_boolean_outputs():
    assert re.search(r"@InvocableMethod\(\s*label='Read Agent Output Field'", READER)
    assert "category='Agent Platform'" in READER and "callout=true" not in READER  # no callout: it reads text
    assert [label for label, _ in variables(inner_class("Request", READER))] == ["Output JSON", "Field Path"]
    assert [label for label, _ in variables(inner_class("Result", READER))] == [
        "Text Value", "Number Value", "Boolean Value", "Is Null"]
    tests = (ROOT / "salesforce/force-app/main/default/classes/ReadAgentOutputFieldTest.cls").read_text()
    for name in ("readsNumbersBooleansAndText", "readsArrayElementsNullsAndWholeObjects",
                 "aPathThatNamesNothingIsAFaultNamingIt", "readsTheOutputOfAnInvokeWithAnOutputSchema"):
        assert f"static void {name}()" in tests
    permissions = (ROOT / "salesforce/force-app/main/default/permissionsets/Agentgate_Caller.permissionset-meta.xml").read_text()
    assert "<apexClass>ReadAgentOutputField</apexClass>" in permissions
