// An A2A push notification receiver, for the black-box tests of A2A push configs (docs/a2a.md):
// every POST's body is read by the official SDK (@a2a-js/sdk, pinned) as the StreamResponse A2A
// 1.0 pushes (or kept as it is for 0.3, which pushes the Task itself).
//   node a2a_push_receiver.mjs --port P [--answers 500,200]
// Answers each request with the next of --answers (the last one repeats; default 200) and prints
// one JSON line per request: {status, path, id, content_type, authorization, token, body}.
import { StreamResponse } from '@a2a-js/sdk';
import http from 'node:http';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};
const answers = (arg('answers') ?? '200').split(',').map(Number);
let served = 0;

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const contentType = req.headers['content-type'] ?? '';
      let body;
      try {
        const raw = JSON.parse(text);
        // 1.0's payload through the SDK's own reader; 0.3's (the Task, with `kind`) as sent.
        body = raw.kind ? raw : StreamResponse.toJSON(StreamResponse.fromJSON(raw));
      } catch (e) {
        body = { unreadable: String(e.message ?? e), text };
      }
      const status = answers[Math.min(served, answers.length - 1)];
      served += 1;
      console.log(
        JSON.stringify({
          status,
          path: req.url,
          id: req.headers['webhook-id'] ?? null,
          content_type: contentType,
          authorization: req.headers['authorization'] ?? null,
          token: req.headers['x-a2a-notification-token'] ?? null,
          body,
        })
      );
      res.writeHead(status).end();
    });
  })
  .listen(Number(arg('port')), '127.0.0.1', () => console.error('listening'));
