"""A fake Salesforce org for the metadata gateway's tests, following shared/reference/salesforce-wire.md:
the OAuth token endpoint, Tooling sobjects CRUD (ValidationRule, ids 03d...), the ValidationRule and
EntityDefinition queries, describeGlobal, SOAP deleteMetadata, request-id headers, and switches for
token expiry, refresh-token rotation and refresh failure."""
import json
import re
import secrets
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET
from fakes.http_base import FakeHandler, serve

SOAP_NS = "http://schemas.xmlsoap.org/soap/envelope/"
MD_NS = "http://soap.sforce.com/2006/04/metadata"
CUSTOM_OBJECTS = ["Invoice__c", "Shipment__c", "Widget__c"]


class FakeSalesforce:
    def __init__(self, client_id="3MVG9CLIENT", client_secret="client-secret", refresh_token="5Aep86REFRESH",
                 certificate=None):
        self.client_id, self.client_secret = client_id, client_secret
        self.refresh_tokens = {refresh_token}
        self.rotate = False
        self.fail_refresh = None  # e.g. ("invalid_grant", "expired access/refresh token")
        self.token_delay = 0.0  # seconds the token endpoint takes to answer
        self.access_tokens = set()
        self.refreshes = 0
        self.requests = []
        self.rules = {}  # id -> {"FullName", "Metadata"}
        self.fields = {"Account.Legacy_Code__c"}
        self.lock = threading.Lock()
        fake = self

        class Handler(FakeHandler):

            def do_GET(self):
                fake._handle(self, "GET")

            def do_POST(self):
                fake._handle(self, "POST")

            def do_PATCH(self):
                fake._handle(self, "PATCH")

            def do_PUT(self):
                fake._handle(self, "PUT")

            def do_DELETE(self):
                fake._handle(self, "DELETE")

        self.server = serve(Handler, certificate)
        self.port = self.server.server_address[1]
        # The test certificate names localhost.
        self.url = f"https://localhost:{self.port}" if certificate else f"http://127.0.0.1:{self.port}"
        self.instance_url = self.url  # what the token endpoint answers; an org may move

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def expire_tokens(self):
        with self.lock:
            self.access_tokens.clear()

    # --- responses -------------------------------------------------------------------------
    @staticmethod
    def _send(h, status, body=None, content_type="application/json;charset=UTF-8", request_id=True):
        payload = b"" if body is None else (body if isinstance(body, bytes) else
                                            (body.encode() if isinstance(body, str) else json.dumps(body).encode()))
        h.send_response(status)
        if body is not None:
            h.send_header("content-type", content_type)
        if request_id:
            rid = secrets.token_hex(16)
            h.send_header("x-sfdc-request-id", rid)
            h.send_header("x-request-id", rid)
        h.send_header("sforce-limit-info", "api-usage=18/5000")
        h.send_header("content-length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)

    def _handle(self, h, method):
        length = int(h.headers.get("content-length", 0))
        raw = h.rfile.read(length) if length else b""
        parsed = urllib.parse.urlsplit(h.path)
        with self.lock:
            self.requests.append({"method": method, "path": h.path, "headers": {k.lower(): v for k, v in h.headers.items()},
                                  "body": raw.decode(errors="replace")})
        if parsed.path == "/services/oauth2/token" and method == "POST":
            return self._token(h, raw, parsed.query)
        m = re.match(r"^/services/Soap/m/(\d+\.\d)(/\w+)?$", parsed.path)
        if m and method == "POST":
            return self._soap(h, raw)
        auth = h.headers.get("authorization", "")
        token = auth.split(" ", 1)[1] if " " in auth else ""
        with self.lock:
            valid = token in self.access_tokens
        if not valid:
            return self._send(h, 401, [{"message": "Session expired or invalid", "errorCode": "INVALID_SESSION_ID"}])
        m = re.match(r"^/services/data/v(\d+\.\d)/(.*)$", parsed.path)
        if parsed.path == "/services/apexrest/plain":
            return self._send(h, 200, "plain text, not JSON", content_type="text/plain")
        if parsed.path == "/services/apexrest/deep":  # deeper than a JSON parser's default limit
            return self._send(h, 200, "[" * 100 + '{"leaf":true}' + "]" * 100)
        if parsed.path == "/services/apexrest/latin1":  # not UTF-8
            return self._send(h, 200, "Caf\xe9 cr\xe8me".encode("latin-1"), content_type="text/plain")
        if not m:
            return self._send(h, 404, [{"message": "The requested resource does not exist", "errorCode": "NOT_FOUND"}])
        rest = m.group(2)
        if rest in ("sobjects", "tooling/sobjects") and method == "GET":
            return self._send(h, 200, self._describe_global(m.group(1)))
        if rest.rstrip("/") == "tooling/query" and method == "GET":
            return self._query(h, urllib.parse.parse_qs(parsed.query).get("q", [""])[0], m.group(1))
        r = re.match(r"^tooling/sobjects/ValidationRule(?:/(\w+))?$", rest)
        if r:
            return self._validation_rule(h, method, r.group(1), raw, m.group(1))
        return self._send(h, 404, [{"message": "The requested resource does not exist", "errorCode": "NOT_FOUND"}])

    def _token(self, h, raw, query):
        form = urllib.parse.parse_qs(raw.decode()) if raw else {}
        form.update(urllib.parse.parse_qs(query))
        get = lambda k: (form.get(k) or [""])[0]
        with self.lock:
            self.refreshes += 1
        time.sleep(self.token_delay)
        with self.lock:
            if self.fail_refresh:
                return self._send(h, 400, {"error": self.fail_refresh[0], "error_description": self.fail_refresh[1]})
            if get("grant_type") != "refresh_token":
                return self._send(h, 400, {"error": "unsupported_grant_type", "error_description": "grant type not supported"})
            if get("client_id") != self.client_id:
                return self._send(h, 400, {"error": "invalid_client_id", "error_description": "client identifier invalid"})
            if get("client_secret") != self.client_secret:
                return self._send(h, 400, {"error": "invalid_client", "error_description": "invalid client credentials"})
            if get("refresh_token") not in self.refresh_tokens:
                return self._send(h, 400, {"error": "invalid_grant", "error_description": "expired access/refresh token"})
            access = "00D5g0000012345!" + secrets.token_urlsafe(24)
            self.access_tokens.add(access)
            body = {"access_token": access, "signature": "sig", "scope": "refresh_token api",
                    "instance_url": self.instance_url, "id": "https://login.salesforce.com/id/00D5g0000012345EAA/0055g00000ABCDEAA2",
                    "token_type": "Bearer", "issued_at": "1708058728442"}
            if self.rotate:
                self.refresh_tokens.discard(get("refresh_token"))  # single use
                new = "5Aep86" + secrets.token_urlsafe(12)
                self.refresh_tokens.add(new)
                body["refresh_token"] = new
        return self._send(h, 200, body, request_id=False)

    def _describe_global(self, version):
        objs = [("Account", False), ("Contact", False)] + [(n, True) for n in CUSTOM_OBJECTS]
        return {"encoding": "UTF-8", "maxBatchSize": 200, "sobjects": [
            {"name": n, "label": n.replace("__c", ""), "custom": c, "keyPrefix": None if c else "001", "queryable": True,
             "urls": {"sobject": f"/services/data/v{version}/sobjects/{n}"}} for n, c in objs]}

    def _query(self, h, soql, version):
        if re.search(r"WHERE\s+FullName\s*=", soql, re.I):
            return self._send(h, 400, [{"message": "field 'FullName' can not be filtered in a query call",
                                        "errorCode": "INVALID_FIELD"}])
        m = re.search(r"FROM\s+ValidationRule\s+WHERE\s+EntityDefinition\.QualifiedApiName\s*=\s*'(\w+)'\s+AND\s+"
                      r"ValidationName\s*=\s*'(\w+)'", soql, re.I)
        if m:
            full = f"{m.group(1)}.{m.group(2)}"
            with self.lock:
                ids = [i for i, r in self.rules.items() if r["FullName"] == full]
            records = [{"attributes": {"type": "ValidationRule",
                                       "url": f"/services/data/v{version}/tooling/sobjects/ValidationRule/{i}"}, "Id": i}
                       for i in ids]
            return self._send(h, 200, {"size": len(records), "totalSize": len(records), "done": True, "queryLocator": None,
                                       "entityTypeName": "ValidationRule" if records else None, "records": records})
        if re.search(r"FROM\s+EntityDefinition", soql, re.I) and "LIKE '%__c'" in soql:
            records = [{"attributes": {"type": "EntityDefinition",
                                       "url": f"/services/data/v{version}/tooling/sobjects/EntityDefinition/01I{i:012d}"},
                        "QualifiedApiName": n} for i, n in enumerate(CUSTOM_OBJECTS)]
            return self._send(h, 200, {"size": len(records), "totalSize": len(records), "done": True, "queryLocator": None,
                                       "entityTypeName": "EntityDefinition", "records": records})
        return self._send(h, 400, [{"message": "unexpected token: " + soql[:20], "errorCode": "MALFORMED_QUERY"}])

    def _validation_rule(self, h, method, rule_id, raw, version):
        with self.lock:
            if method == "POST" and not rule_id:
                body = json.loads(raw or b"{}")
                if "FullName" not in body or "Metadata" not in body:
                    return self._send(h, 400, [{"message": "Required fields are missing: [FullName]",
                                                "errorCode": "REQUIRED_FIELD_MISSING", "fields": ["FullName"]}])
                new_id = "03d5g" + secrets.token_hex(5).upper()[:10] + "AAK"
                self.rules[new_id] = {"FullName": body["FullName"], "Metadata": body["Metadata"]}
                return self._send(h, 201, {"id": new_id, "success": True, "errors": [], "warnings": [], "infos": []})
            if rule_id not in self.rules:
                return self._send(h, 404, [{"message": "The requested resource does not exist", "errorCode": "NOT_FOUND"}])
            if method == "GET":
                r = self.rules[rule_id]
                return self._send(h, 200, {"attributes": {"type": "ValidationRule"}, "Id": rule_id,
                                           "FullName": r["FullName"], "Metadata": r["Metadata"]})
            if method == "PATCH":
                self.rules[rule_id]["Metadata"] = json.loads(raw or b"{}").get("Metadata", {})
                return self._send(h, 204)
            if method == "DELETE":
                del self.rules[rule_id]
                return self._send(h, 204)
        return self._send(h, 405, [{"message": "method not allowed", "errorCode": "METHOD_NOT_ALLOWED"}])

    def _soap(self, h, raw):
        fault = lambda code, text: self._send(h, 500, (
            f'<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="{SOAP_NS}" xmlns:sf="{MD_NS}">'
            f"<soapenv:Body><soapenv:Fault><faultcode>{code}</faultcode><faultstring>{text}</faultstring>"
            "</soapenv:Fault></soapenv:Body></soapenv:Envelope>"), content_type="text/xml;charset=UTF-8")
        try:
            root = ET.fromstring(raw)
        except ET.ParseError:
            return fault("soapenv:Client", "malformed request")
        session = root.find(f".//{{{MD_NS}}}sessionId")
        with self.lock:
            valid = session is not None and session.text in self.access_tokens
        if not valid:
            return fault("sf:INVALID_SESSION_ID", "INVALID_SESSION_ID: Invalid Session ID found in SessionHeader: Illegal Session")
        op = root.find(f".//{{{MD_NS}}}deleteMetadata")
        type_ = op.find(f"{{{MD_NS}}}type").text
        name = op.find(f"{{{MD_NS}}}fullNames").text
        with self.lock:
            known = type_ == "CustomField" and name in self.fields
            if known:
                self.fields.discard(name)
        result = (f"<result><fullName>{name}</fullName><success>true</success></result>" if known else
                  f"<result><errors><message>In field: fullName - no {type_} named {name} found</message>"
                  f"<statusCode>INVALID_CROSS_REFERENCE_KEY</statusCode></errors><fullName>{name}</fullName>"
                  "<success>false</success></result>")
        return self._send(h, 200, (f'<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="{SOAP_NS}" '
                                   f'xmlns="{MD_NS}"><soapenv:Body><deleteMetadataResponse>{result}'
                                   "</deleteMetadataResponse></soapenv:Body></soapenv:Envelope>"),
                          content_type="text/xml;charset=UTF-8")
