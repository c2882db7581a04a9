// The official `openai` SDK (pinned) with nothing but a base URL and an API key, for the black-box
// tests of the OpenAI-compatible API (docs/openai.md), its retries left at their defaults.
//   node openai_client.mjs --base URL --key KEY --call chat --model M --messages JSON
//                          [--metadata JSON] [--response-format JSON] [--idempotency-key K]
//   node openai_client.mjs --base URL --key KEY --call stream --model M --messages JSON
//                          [--idempotency-key K]
//   node openai_client.mjs --base URL --key KEY --call models
//   (chat and stream take --tools JSON and --tool-choice JSON: the caller's own functions)
//   node openai_client.mjs --base URL --key KEY --call run-tools --model M --messages JSON [--stream true]
//                          [--metadata JSON]
//     the SDK's own tool loop (chat.completions.runTools) with a `weather` function it runs itself
//   node openai_client.mjs --base URL --key KEY --call response --model M --input JSON|TEXT
//                          [--text JSON: the Responses API's text param, e.g. its json_schema format]
//                          [--previous ID] [--instructions TEXT] [--store BOOL] [--idempotency-key K]
//   node openai_client.mjs --base URL --key KEY --call response-stream --model M --input JSON|TEXT
//                          [--previous ID] [--metadata JSON] [--idempotency-key K]
//                          (the SDK's stream helper: its events and final response)
//   node openai_client.mjs --base URL --key KEY --call background --model M --input JSON|TEXT
//                          [--metadata JSON] [--cancel true]   (polled with retrieve until it ends, or canceled)
//   node openai_client.mjs --base URL --key KEY --call retrieve --id ID
//   node openai_client.mjs --base URL --key KEY --call parse-chat --model M --messages JSON
//   node openai_client.mjs --base URL --key KEY --call parse-response --model M --input JSON|TEXT
//                          (the SDK's structured-output helpers, zodResponseFormat and
//                          zodTextFormat, with the Ticket model below: {parsed, content})
//   node openai_client.mjs --base URL --key KEY --call get --path /PATH   (a raw GET under /v1)
//   node openai_client.mjs --base URL --key KEY --call input-items --id ID [--limit N] [--order O]
//                          (every page, walked by the SDK's own pagination)
//   node openai_client.mjs --base URL --key KEY --call conversation --op OP [--id CONV]
//                          [--item ID] [--items JSON] [--metadata JSON] [--limit N] [--order O]
//                          (OP: create, retrieve, update, delete, items-create, items-list (every
//                          page, walked by the SDK's own pagination), item-retrieve, item-delete)
// Prints one JSON line: {"result": ...} or {"error": {status, class, type, code, param, message,
// should_retry}}, with "requests": how many HTTP requests the SDK sent (its retries included).
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';

// A model as an application writes it: a nested object, an enum, an email, a list.
const Ticket = z.object({
  contact: z.object({ email: z.string().email(), name: z.string() }),
  priority: z.enum(['low', 'high']),
  tags: z.array(z.string()),
});

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};

// `--input`: JSON (messages), or else the text itself.
const input = () => {
  try {
    return JSON.parse(arg('input'));
  } catch {
    return arg('input');
  }
};

// The SDK sends no Idempotency-Key of its own (its idempotencyKey option needs a header name the
// OpenAI client does not set): a caller passes it as a header.
const idempotency = () => (arg('idempotency-key') ? { headers: { 'Idempotency-Key': arg('idempotency-key') } } : {});

let requests = 0;
const client = new OpenAI({
  baseURL: `${arg('base')}/v1`,
  apiKey: arg('key'),
  fetch: (url, init) => {
    requests += 1;
    return fetch(url, init);
  },
});

// Every item of a list, page by page as the SDK's pagination walks it.
async function allPages(first) {
  const items = [];
  let pages = 0;
  for await (const page of first.iterPages()) {
    pages += 1;
    items.push(...page.data);
  }
  return { items, pages };
}

// One call of the SDK's Conversations API.
async function conversation(conversations, op) {
  const json = (name) => (arg(name) ? JSON.parse(arg(name)) : undefined);
  switch (op) {
    case 'create':
      return conversations.create({ items: json('items'), metadata: json('metadata') });
    case 'retrieve':
      return conversations.retrieve(arg('id'));
    case 'update':
      return conversations.update(arg('id'), { metadata: json('metadata') });
    case 'delete':
      return conversations.delete(arg('id'));
    case 'items-create':
      return conversations.items.create(arg('id'), { items: json('items') });
    case 'items-list': {
      const query = { limit: json('limit'), order: arg('order') };
      return allPages(await conversations.items.list(arg('id'), query));
    }
    case 'item-retrieve':
      return conversations.items.retrieve(arg('item'), { conversation_id: arg('id') });
    case 'item-delete':
      return conversations.items.delete(arg('item'), { conversation_id: arg('id') });
    default:
      throw new Error(`unknown --op ${op}`);
  }
}

// The caller's own functions, when the test gives them.
function withTools(body) {
  if (arg('tools')) body.tools = JSON.parse(arg('tools'));
  if (arg('tool-choice')) body.tool_choice = JSON.parse(arg('tool-choice'));
  return body;
}

async function call() {
  switch (arg('call')) {
    case 'chat': {
      const body = { model: arg('model'), messages: JSON.parse(arg('messages')) };
      if (arg('metadata')) body.metadata = JSON.parse(arg('metadata'));
      if (arg('response-format')) body.response_format = JSON.parse(arg('response-format'));
      withTools(body);
      const options = idempotency();
      return client.chat.completions.create(body, options);
    }
    case 'run-tools': {
      // The SDK runs `weather` itself and sends its result back, the history resent each time.
      const called = [];
      const runner = client.chat.completions.runTools({
        model: arg('model'), messages: JSON.parse(arg('messages')), stream: arg('stream') === 'true',
        ...(arg('metadata') ? { metadata: JSON.parse(arg('metadata')) } : {}),
        tools: [{
          type: 'function',
          function: {
            name: 'weather', description: 'The weather in a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            parse: JSON.parse,
            function: ({ city }) => { called.push(city); return `sunny in ${city}`; },
          },
        }],
      });
      const content = await runner.finalContent();
      return { content, called, messages: runner.messages };
    }
    case 'stream': {
      // Every chunk as the SDK hands it over; an error in the stream is thrown by its iterator.
      const stream = await client.chat.completions.create(withTools({
        model: arg('model'), messages: JSON.parse(arg('messages')), stream: true,
        stream_options: { include_usage: true },
      }), idempotency());
      const chunks = [];
      try {
        for await (const chunk of stream) chunks.push(chunk);
      } catch (e) {
        if (!(e instanceof OpenAI.APIError)) throw e;
        return { chunks, error: { class: e.constructor.name, code: e.code, message: e.message } };
      }
      return { chunks };
    }
    case 'response': {
      const body = { model: arg('model'), input: input() };
      withTools(body);
      if (arg('previous')) body.previous_response_id = arg('previous');
      if (arg('instructions')) body.instructions = arg('instructions');
      if (arg('store')) body.store = JSON.parse(arg('store'));
      if (arg('text')) body.text = JSON.parse(arg('text'));
      if (arg('metadata')) body.metadata = JSON.parse(arg('metadata'));
      // `--conversation`: its id, or JSON ({"id": ...}).
      if (arg('conversation')) body.conversation = arg('conversation').startsWith('{') ? JSON.parse(arg('conversation')) : arg('conversation');
      const response = await client.responses.create(body, idempotency());
      return { ...response, output_text: response.output_text };
    }
    case 'response-stream': {
      // The SDK's own accumulation of the events (it throws on any it cannot place).
      const body = { model: arg('model'), input: input() };
      withTools(body);
      if (arg('previous')) body.previous_response_id = arg('previous');
      if (arg('store')) body.store = JSON.parse(arg('store'));
      if (arg('metadata')) body.metadata = JSON.parse(arg('metadata'));
      const stream = client.responses.stream(body, idempotency());
      const events = [];
      try {
        for await (const event of stream) events.push(event);
        const final = await stream.finalResponse();
        return { events, final: { ...final, output_text: final.output_text } };
      } catch (e) {
        if (!(e instanceof OpenAI.APIError)) throw e;
        return { events, error: { class: e.constructor.name, code: e.code, message: e.message } };
      }
    }
    case 'background': {
      const created = await client.responses.create(withTools({
        model: arg('model'), input: input(), background: true,
        ...(arg('metadata') ? { metadata: JSON.parse(arg('metadata')) } : {}),
        ...(arg('previous') ? { previous_response_id: arg('previous') } : {}),
      }));
      if (arg('cancel')) {
        const canceled = await client.responses.cancel(created.id);
        return { created, final: canceled, seen: [created.status, canceled.status] };
      }
      const seen = [created.status];
      let current = created;
      for (let i = 0; i < 300 && ['queued', 'in_progress'].includes(current.status); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        current = await client.responses.retrieve(created.id);
        if (seen[seen.length - 1] !== current.status) seen.push(current.status);
      }
      return { created, final: { ...current, output_text: current.output_text }, seen };
    }
    case 'retrieve': {
      const response = await client.responses.retrieve(arg('id'));
      return { ...response, output_text: response.output_text };
    }
    case 'parse-chat': {
      const completion = await client.chat.completions.parse({
        model: arg('model'), messages: JSON.parse(arg('messages')),
        response_format: zodResponseFormat(Ticket, 'ticket'),
      });
      const message = completion.choices[0].message;
      return { parsed: message.parsed, content: message.content };
    }
    case 'parse-response': {
      const response = await client.responses.parse({
        model: arg('model'), input: input(), text: { format: zodTextFormat(Ticket, 'ticket') },
      });
      return { parsed: response.output_parsed, content: response.output_text };
    }
    case 'get':
      return client.get(arg('path'));
    case 'conversation':
      return conversation(client.conversations, arg('op'));
    case 'input-items': {
      const query = { limit: arg('limit') ? JSON.parse(arg('limit')) : undefined, order: arg('order') };
      return allPages(await client.responses.inputItems.list(arg('id'), query));
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
