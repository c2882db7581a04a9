// The official TypeScript SDK's MCP client against agentgate's POST /mcp, for the black-box tests.
//   node sdk_client.mjs --url URL --org O --env E --token T --sdk v1|v2 --calls JSON
// v1 is @modelcontextprotocol/sdk (2025-11-25, initialize handshake); v2 is
// @modelcontextprotocol/client pinned to 2026-07-28. --calls is a list of
// {"name", "arguments", "abort_after_ms"?, "progress"?}; "$conversation_id" in arguments is
// replaced by the conversation_id of the previous result. With "progress": true the call asks for
// progress (the SDK's onprogress, which sends a progressToken) and its result gets the
// notifications' params as "progress". With --elicit JSON (a list of elicitation results) the client
// declares form elicitation and answers each elicitation/create it is asked with the next result
// of the list; the requests' params are printed as "elicitations".
// Prints {"version", "tools", "results", "elicitations"?} as one JSON line.
const arg = (name) => process.argv[process.argv.indexOf(`--${name}`) + 1];
const sdk = arg('sdk');
const headers = { 'fl-api-org': arg('org'), 'fl-api-env': arg('env'), 'fl-api-token': arg('token') };
const calls = JSON.parse(arg('calls') ?? '[]');
const elicit = process.argv.includes('--elicit') ? JSON.parse(arg('elicit')) : null;
const elicitations = [];
const capabilities = elicit ? { capabilities: { elicitation: { form: {} } } } : {};
const answerElicitation = async (request) => {
  elicitations.push(request.params);
  return elicit[elicitations.length - 1] ?? { action: 'cancel' };
};

async function connect() {
  const url = new URL(arg('url'));
  if (sdk === 'v1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const client = new Client({ name: 'agentgate-test-v1', version: '1.0.0' }, capabilities);
    if (elicit) {
      const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
      client.setRequestHandler(ElicitRequestSchema, answerElicitation);
    }
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    return { client, version: () => client.transport?.protocolVersion };
  }
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client({ name: 'agentgate-test-v2', version: '1.0.0' },
                            { versionNegotiation: { mode: { pin: '2026-07-28' } }, ...capabilities });
  if (elicit) client.setRequestHandler('elicitation/create', answerElicitation);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return { client, version: () => client.getNegotiatedProtocolVersion() };
}

function substitute(value, conversationId) {
  return JSON.parse(JSON.stringify(value).replaceAll('"$conversation_id"', JSON.stringify(conversationId ?? null)));
}

const { client, version } = await connect();
const listed = await client.listTools();
const results = [];
let conversationId = null;
for (const call of calls) {
  const controller = new AbortController();
  if (call.abort_after_ms) setTimeout(() => controller.abort(), call.abort_after_ms);
  try {
    // A call without arguments sends none (the tool's refusal must not depend on them).
    const params = call.arguments === undefined
      ? { name: call.name }
      : { name: call.name, arguments: substitute(call.arguments, conversationId) };
    const progress = [];
    const options = { signal: controller.signal, timeout: 60000 };
    if (call.progress) options.onprogress = (p) => progress.push(p);
    // v1 takes a result schema before the options; v2 takes the options second.
    const result = sdk === 'v1' ? await client.callTool(params, undefined, options)
                                : await client.callTool(params, options);
    conversationId = result.structuredContent?.conversation_id ?? conversationId;
    results.push(call.progress ? { ...result, progress } : result);
  } catch (e) {
    results.push({ thrown: String(e?.message ?? e), code: e?.code ?? null, aborted: controller.signal.aborted });
  }
}
console.log(JSON.stringify({ version: version() ?? null, tools: listed.tools, results,
                             ...(elicit ? { elicitations } : {}) }));
await client.close();
process.exit(0);
