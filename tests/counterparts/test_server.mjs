// An MCP server built on the official TypeScript SDK, for the black-box tests.
//   node test_server.mjs --port N --era modern [--response json|sse]   (v2 SDK, 2026-07-28)
//   node test_server.mjs --port N --era legacy [--version 2025-06-18]  (v1 SDK, sessions)
// Tools: lookup (text and structured content), fail (isError), slow (waits until canceled),
// refund (modern only: asks the user to confirm first, with an input_required result and a
// requestState it checks on the retry).
// GET /events lists what it saw (calls, cancellations, protocol versions) so tests can check.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const port = Number(arg('port', '0'));
const era = arg('era', 'modern');
const responseMode = arg('response', 'json');
// legacy: the newest revision this server admits to (the SDK answers initialize with the client's
// version when it supports it; asking it for an older one makes it an older server).
const legacyVersion = arg('version', null);
const events = [];

function registerTools(server) {
  server.registerTool(
    'lookup',
    {
      description: 'Looks up an order by id.',
      inputSchema: { order_id: z.string().describe('The order id') },
      annotations: { readOnlyHint: true },
    },
    async ({ order_id }) => {
      events.push({ event: 'call', tool: 'lookup', order_id });
      const order = { order_id, status: 'shipped', items: 2 };
      return { content: [{ type: 'text', text: `Order ${order_id} has shipped.` }], structuredContent: order };
    },
  );
  server.registerTool(
    'fail',
    { description: 'Always fails.', inputSchema: { why: z.string().optional() } },
    async () => ({ content: [{ type: 'text', text: 'the warehouse is closed' }], isError: true }),
  );
  server.registerTool(
    'slow',
    { description: 'Takes a long time.', inputSchema: { seconds: z.number().optional() } },
    async ({ seconds }, ctx) => {
      const signal = ctx?.mcpReq?.signal ?? ctx?.signal;
      events.push({ event: 'call', tool: 'slow' });
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, (seconds ?? 30) * 1000);
        signal?.addEventListener('abort', () => {
          events.push({ event: 'cancelled', tool: 'slow' });
          clearTimeout(timer);
          resolve();
        });
      });
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
}

// The modern SDK's multi-round-trip tool: the first call asks, the retry carries the answer.
function registerRefund(server, { inputRequired, acceptedContent }) {
  const confirmation = z.object({ confirm: z.boolean().describe('Refund it?') });
  server.registerTool(
    'refund',
    { description: 'Refunds an order once the user confirms.', inputSchema: { order_id: z.string() } },
    async ({ order_id }, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      const state = ctx.mcpReq.requestState();
      events.push({ event: 'call', tool: 'refund', order_id, responses: responses ?? null, state: state ?? null });
      if (responses === undefined) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: `Refund order ${order_id}?`, requestedSchema: confirmation }) },
          requestState: `refund:${order_id}:"ticket"`,
        });
      }
      if (state !== `refund:${order_id}:"ticket"`) {
        return { content: [{ type: 'text', text: 'the request state came back altered' }], isError: true };
      }
      const answer = acceptedContent(responses, 'confirm', confirmation);
      if (answer?.confirm !== true) return { content: [{ type: 'text', text: `order ${order_id} was not refunded` }] };
      return { content: [{ type: 'text', text: `order ${order_id} refunded` }] };
    },
  );
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function serveEvents(req, res) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(events));
}

async function modernApp() {
  const sdk = await import('@modelcontextprotocol/server');
  const { McpServer, createMcpHandler } = sdk;
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'agentgate-test-modern', version: '1.0.0' });
      registerTools(server);
      registerRefund(server, sdk);
      return server;
    },
    { responseMode, legacy: 'reject' },
  );
  return async (req, res) => {
    const body = await readBody(req);
    const parsed = body.length ? JSON.parse(body.toString()) : undefined;
    events.push({ event: 'post', version: req.headers['mcp-protocol-version'] ?? null, method: req.headers['mcp-method'] ?? null,
                  name: req.headers['mcp-name'] ?? null, auth: req.headers['authorization'] ?? null,
                  traceparent: req.headers['traceparent'] ?? null, meta_traceparent: parsed?.params?._meta?.traceparent ?? null });
    // The client closing the connection is the cancellation signal of this revision.
    const aborter = new AbortController();
    res.on('close', () => { if (!res.writableFinished) aborter.abort(); });
    const request = new Request(`http://127.0.0.1:${port}${req.url}`, {
      method: req.method,
      headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
      body: ['GET', 'HEAD'].includes(req.method) ? undefined : body,
      signal: aborter.signal,
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return res.end();
    const reader = response.body.getReader();
    aborter.signal.addEventListener('abort', () => reader.cancel().catch(() => {}));
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {}
    res.end();
  };
}

async function legacyApp() {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const transports = new Map();
  return async (req, res) => {
    const body = await readBody(req);
    const parsed = body.length ? JSON.parse(body.toString()) : undefined;
    if (legacyVersion && parsed?.method === 'initialize') parsed.params.protocolVersion = legacyVersion;
    const sessionId = req.headers['mcp-session-id'];
    events.push({ event: 'post', version: req.headers['mcp-protocol-version'] ?? null, method: parsed?.method ?? null,
                  auth: req.headers['authorization'] ?? null, traceparent: req.headers['traceparent'] ?? null,
                  meta_traceparent: parsed?.params?._meta?.traceparent ?? null });
    if (parsed?.method === 'notifications/cancelled') events.push({ event: 'cancel-notification', request: parsed.params?.requestId });
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId || parsed?.method !== 'initialize') {
        res.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } }));
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      const server = new McpServer({ name: 'agentgate-test-legacy', version: '1.0.0' });
      registerTools(server);
      await server.connect(transport);
    }
    await transport.handleRequest(req, res, parsed);
  };
}

const app = era === 'legacy' ? await legacyApp() : await modernApp();
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/events') return serveEvents(req, res);
  app(req, res).catch((e) => {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(e));
  });
});
server.listen(port, '127.0.0.1', () => {
  console.log(`listening on ${server.address().port}`);
});
