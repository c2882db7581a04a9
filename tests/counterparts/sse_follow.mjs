// Follows a run with the WhatWG `eventsource` client (pinned), for the black-box tests.
//   node sse_follow.mjs --base URL --path PATH --org O --env E --token T
//                       [--body JSON] [--cut-after N] [--timeout-ms MS]
// With --body the first request POSTs it (a streamed invoke) and a reconnect follows the run at the
// Location it answered; without, every request GETs PATH (a run's events). --cut-after N puts a
// TCP proxy in between that cuts the first connection once N events went through it, so the
// client reconnects on its own with Last-Event-ID. Prints {"events", "requests", "error"} as one
// JSON line once the run's terminal event arrived, or the stream's own end (stream.ended), or the
// timeout passed. It prints "open" on stderr when the first response's head arrived.
import { EventSource } from 'eventsource';
import net from 'node:net';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};
const base = new URL(arg('base'));
const body = arg('body');
const cutAfter = Number(arg('cut-after') ?? 0);
const timeoutMs = Number(arg('timeout-ms') ?? 30000);
const headers = { 'fl-api-org': arg('org'), 'fl-api-env': arg('env'), 'fl-api-token': arg('token') };
const types = ['run.started', 'model.started', 'model.finished', 'tool.started', 'tool.progress', 'tool.finished',
  'text.delta', 'action', 'text.retracted', 'run.completed', 'run.failed', 'run.requires_action',
  'stream.ended'];
// The stream's own last event (its token revoked, its grant removed): the run goes on.
const ends = ['run.completed', 'run.failed', 'stream.ended'];

// The proxy: the first connection is cut after `cutAfter` events went from the server to the client.
async function proxy() {
  let connections = 0;
  const server = net.createServer((client) => {
    const first = connections++ === 0;
    let seen = 0;
    const upstream = net.connect(Number(base.port), base.hostname);
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => {
      client.write(d);
      if (!first) return;
      seen += (d.toString().match(/^event: /gm) ?? []).length;
      if (seen >= cutAfter) {
        client.destroy();
        upstream.destroy();
      }
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

const cut = cutAfter > 0 ? await proxy() : null;
const origin = cut ? cut.origin : base.origin;
const events = [];
const requests = [];
let location = null;

const es = new EventSource(new URL(arg('path'), origin), {
  fetch: async (input, init) => {
    const sent = { ...init.headers, ...headers };
    const lastEventId = sent['Last-Event-ID'] ?? sent['last-event-id'] ?? null;
    let url = input;
    let request = { ...init, headers: sent };
    if (body !== undefined && location === null) {
      request = { ...request, method: 'POST', body, headers: { ...sent, 'content-type': 'application/json' } };
    } else if (location !== null) {
      url = new URL(location + '/events', origin);
    }
    requests.push({ method: request.method ?? 'GET', url: String(url), last_event_id: lastEventId });
    const response = await fetch(url, request);
    if (requests.length === 1) process.stderr.write('open\n');
    if (body !== undefined && location === null) location = response.headers.get('location');
    return response;
  },
});

const done = new Promise((resolve) => {
  for (const type of types) {
    es.addEventListener(type, (event) => {
      events.push({ id: event.lastEventId, type, data: JSON.parse(event.data) });
      if (ends.includes(type)) resolve(null);
    });
  }
  es.addEventListener('error', (event) => {
    // A refused request (a plain JSON error) is final; a dropped connection is retried.
    if (event.code !== undefined) resolve({ code: event.code, message: event.message });
  });
  setTimeout(() => resolve({ message: 'timed out' }), timeoutMs);
});
const error = await done;
es.close();
cut?.server.close();
console.log(JSON.stringify({ events, requests, error }));
process.exit(0);
