// Clients of the built-in authorization server (docs/mcp.md, OAuth), for the black-box tests.
//   node oauth_client.mjs mcp --url URL/mcp --client-id ID --client-secret S --calls JSON
//     The official SDK's MCP client with its client-credentials auth provider: from a bare 401 it
//     discovers the metadata, fetches a token and calls the tools. Prints {"tools", "results",
//     "requests": [[method, url, status]...], "access_token"} as one JSON line.
//   node oauth_client.mjs verify --jwks URL --issuer I --audience A --token T
//     jose verifies the token against the JWKS. Prints {"payload", "header"} or {"error", "code"}.
const [mode, ...rest] = process.argv.slice(2);
const arg = (name) => rest[rest.indexOf(`--${name}`) + 1];

if (mode === 'mcp') {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { ClientCredentialsProvider } = await import('@modelcontextprotocol/sdk/client/auth-extensions.js');
  const requests = [];
  const logged = async (url, init) => {
    const response = await fetch(url, init);
    requests.push([init?.method ?? 'GET', String(url), response.status]);
    return response;
  };
  const provider = new ClientCredentialsProvider({ clientId: arg('client-id'), clientSecret: arg('client-secret') });
  const client = new Client({ name: 'agentgate-oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(arg('url')),
                                                         { authProvider: provider, fetch: logged }));
  const listed = await client.listTools();
  const results = [];
  for (const call of JSON.parse(arg('calls') ?? '[]')) {
    try {
      results.push(await client.callTool(call, undefined, { timeout: 60000 }));
    } catch (e) {
      results.push({ thrown: String(e?.message ?? e) });
    }
  }
  console.log(JSON.stringify({ tools: listed.tools, results, requests,
                               access_token: provider.tokens()?.access_token ?? null }));
  await client.close();
  process.exit(0);
}

if (mode === 'verify') {
  const { createRemoteJWKSet, jwtVerify } = await import('jose');
  const jwks = createRemoteJWKSet(new URL(arg('jwks')));
  try {
    const { payload, protectedHeader } = await jwtVerify(arg('token'), jwks, {
      issuer: arg('issuer'), audience: arg('audience'), typ: 'at+jwt', algorithms: ['ES256'] });
    console.log(JSON.stringify({ payload, header: protectedHeader }));
  } catch (e) {
    console.log(JSON.stringify({ error: String(e?.message ?? e), code: e?.code ?? null }));
  }
  process.exit(0);
}

console.error(`unknown mode ${mode}`);
process.exit(2);
