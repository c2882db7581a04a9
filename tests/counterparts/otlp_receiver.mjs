// An OTLP/HTTP trace receiver for the black-box tests: every export agentgate sends to
// POST /v1/traces is decoded with the official OpenTelemetry packages (otlp_decode.mjs) and
// appended to --out as one JSON line {headers, request}.
//   node otlp_receiver.mjs --out FILE [--fail N]   (the first N exports answer 503, Retry-After: 0)
// Prints {"port": P} once listening.
import fs from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import { decodeTraces } from './otlp_decode.mjs';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};
const out = arg('out');
let failures = Number(arg('fail') ?? 0);

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    if (failures > 0) {
      failures -= 1;
      res.writeHead(503, { 'retry-after': '0' }).end();
      return;
    }
    let body = Buffer.concat(chunks);
    if (req.headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body);
    // The content headers and every x- header (a collector's credentials).
    const headers = {
      'content-type': req.headers['content-type'],
      'content-encoding': req.headers['content-encoding'],
      ...Object.fromEntries(Object.entries(req.headers).filter(([name]) => name.startsWith('x-'))),
    };
    fs.appendFileSync(out, JSON.stringify({ headers, request: decodeTraces(body) }) + '\n');
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
