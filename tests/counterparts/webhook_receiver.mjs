// A webhook receiver that verifies every delivery with the Standard Webhooks verifier (pinned),
// for the black-box tests.
//   node webhook_receiver.mjs --port P --secret whsec_... [--answers 500,500,200]
// Answers each request with the next of --answers (the last one repeats; default 200) and prints
// one JSON line per request: {id, timestamp, verified, error, tampered_rejected, old_rejected,
// status, body}. `verified` is the verifier's verdict on the request as received; a tampered
// body and a timestamp ten minutes old must be rejected by it too.
import { Webhook } from 'standardwebhooks';
import http from 'node:http';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};
const verifier = new Webhook(arg('secret'));
const answers = (arg('answers') ?? '200').split(',').map(Number);
let served = 0;

const rejects = (payload, headers) => {
  try {
    verifier.verify(payload, headers);
    return false;
  } catch {
    return true;
  }
};

http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = {
      'webhook-id': req.headers['webhook-id'],
      'webhook-timestamp': req.headers['webhook-timestamp'],
      'webhook-signature': req.headers['webhook-signature'],
    };
    const seen = { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'],
      verified: false, error: null, body: null };
    try {
      seen.body = verifier.verify(body, headers);
      seen.verified = true;
    } catch (e) {
      seen.error = String(e.message ?? e);
    }
    seen.tampered_rejected = rejects(body.replace('"', '"x'), headers);
    const old = String(Number(headers['webhook-timestamp']) - 600);
    seen.old_rejected = rejects(body, { ...headers, 'webhook-timestamp': old });
    seen.status = answers[Math.min(served, answers.length - 1)];
    served += 1;
    process.stdout.write(`${JSON.stringify(seen)}\n`);
    res.writeHead(seen.status, { 'content-type': 'text/plain' });
    res.end('ok');
  });
}).listen(Number(arg('port')), '127.0.0.1', () => process.stderr.write('listening\n'));
