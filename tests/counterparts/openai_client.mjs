// The official `openai` SDK (pinned) with nothing but a base URL and an API key, for the black-box
// tests of the OpenAI-compatible API (docs/openai.md), its retries left at their defaults.
//   node openai_client.mjs --base URL --key KEY --call chat --model M --messages JSON
//                          [--metadata JSON] [--idempotency-key K]
//   node openai_client.mjs --base URL --key KEY --call stream --model M --messages JSON
//   node openai_client.mjs --base URL --key KEY --call models
// Prints one JSON line: {"result": ...} or {"error": {status, class, type, code, param, message,
// should_retry}}, with "requests": how many HTTP requests the SDK sent (its retries included).
import OpenAI from 'openai';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};

let requests = 0;
const client = new OpenAI({
  baseURL: `${arg('base')}/v1`,
  apiKey: arg('key'),
  fetch: (url, init) => {
    requests += 1;
    return fetch(url, init);
  },
});

async function call() {
  switch (arg('call')) {
    case 'chat': {
      const body = { model: arg('model'), messages: JSON.parse(arg('messages')) };
      if (arg('metadata')) body.metadata = JSON.parse(arg('metadata'));
      const options = arg('idempotency-key') ? { idempotencyKey: arg('idempotency-key') } : {};
      return client.chat.completions.create(body, options);
    }
    case 'stream': {
      // Every chunk as the SDK hands it over; an error in the stream is thrown by its iterator.
      const stream = await client.chat.completions.create({
        model: arg('model'), messages: JSON.parse(arg('messages')), stream: true,
        stream_options: { include_usage: true },
      });
      const chunks = [];
      try {
        for await (const chunk of stream) chunks.push(chunk);
      } catch (e) {
        if (!(e instanceof OpenAI.APIError)) throw e;
        return { chunks, error: { class: e.constructor.name, code: e.code, message: e.message } };
      }
      return { chunks };
    }
    case 'models': {
      const page = await client.models.list();
      return page.data;
    }
    default:
      throw new Error(`unknown --call ${arg('call')}`);
  }
}

try {
  const result = await call();
  console.log(JSON.stringify({ result, requests }));
} catch (e) {
  if (!(e instanceof OpenAI.APIError)) throw e;
  console.log(JSON.stringify({
    error: {
      status: e.status,
      class: e.constructor.name,
      type: e.type,
      code: e.code,
      param: e.param,
      message: e.message,
      should_retry: e.headers?.get?.('x-should-retry') ?? null,
    },
    requests,
  }));
}
