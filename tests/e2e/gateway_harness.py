"""Shared set-up for the metadata gateway's black-box tests: an org whose prod environment has CRM
credentials for a fake Salesforce org, a token, and a way to call the gateway."""


class Gateway:
    """The acme org with prod CRM credentials (a refresh token, or a static session) for `org_fake`."""

    def __init__(self, server, org_fake, static=False):
        self.server = server
        server.admin("POST", "/orgs", {"id": "acme", "name": "Acme"})
        server.admin("POST", "/orgs/acme/environments", {"name": "prod"})
        _, _, tok = server.admin("POST", "/orgs/acme/tokens", {"name": "automation"})
        self.token, self.token_id = tok["token"], tok["id"]
        # The gateway needs a grant on the environment (docs/gateway.md "Permissions").
        assert server.admin("PUT", "/orgs/acme/environments/prod/grants",
                            {"token_id": self.token_id, "permissions": ["metadata_write"]})[0] == 200
        if static:
            token = "00D5g0000012345!STATIC"
            org_fake.access_tokens.add(token)
            creds = {"instance_url": org_fake.url, "access_token": token}
        else:
            creds = {"login_url": org_fake.url, "client_id": org_fake.client_id, "client_secret": org_fake.client_secret,
                     "refresh_token": next(iter(org_fake.refresh_tokens))}
        assert server.admin("PUT", "/orgs/acme/environments/prod/crm", creds)[0] == 200

    def call(self, body, headers=None):
        h = {"content-type": "application/json", "fl-api-org": "acme", "fl-api-env": "prod", "fl-api-token": self.token}
        h.update(headers or {})
        return self.server.request("POST", "/api/metadata-gateway", body, {k: v for k, v in h.items() if v is not None})
