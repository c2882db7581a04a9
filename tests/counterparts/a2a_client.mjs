// The official A2A JS SDK's client (@a2a-js/sdk, pinned) against an agent's interface, for the
// black-box tests of the A2A server (docs/a2a.md). It finds the agent by its card
// (<url>.well-known/agent-card.json) with the key as a Bearer credential, on the binding asked
// for, as an application would.
//   node a2a_client.mjs --url URL --key KEY --transport JSONRPC|HTTP+JSON --call CALL [...]
//                       [--legacy true]   (A2A 0.3: the SDK's compat JSON-RPC transport)
//   CALL: card                                    the card the client resolved
//         verify                                  the card's signature checked against our JWKS
//         send --text T [--data JSON] [--message-id ID] [--context C] [--task T] [--immediately true]
//         stream --text T [--data JSON] [--message-id ID] [--context C] [--task T]
//                                                   every stream response, in order
//         (--data: a data part; with --task, the answer to a task that waits for its caller)
//         get --task ID | cancel --task ID | subscribe --task ID
//         list [--context C] [--status TASK_STATE_X] [--page-size N] [--after ISO]
//              [--include-artifacts true]           every page, walked by nextPageToken
//         (send and stream: --push-url U [--push-token T] [--push-scheme S --push-credentials C]
//          [--push-id ID]: a push config with the message)
//         push-create --task ID --push-url U [--push-id ID] [--push-token T]
//                     [--push-scheme S --push-credentials C]
//         push-get --task ID [--push-id ID] | push-list --task ID | push-delete --task ID --push-id ID
// Prints one JSON line: {"result": ...} in the protocol's JSON, or {"error": {name, message,
// reason}}: the SDK's own error class.
import {
  Role,
  Message,
  StreamResponse,
  Task,
  AgentCard,
  ListTasksRequest,
  ListTasksResponse,
  TaskPushNotificationConfig,
  ListTaskPushNotificationConfigsResponse,
  canonicalizeAgentCard,
  verifyAgentCardSignature,
} from '@a2a-js/sdk';
import * as jose from 'jose';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { randomUUID } from 'node:crypto';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};

const auth = { Authorization: `Bearer ${arg('key')}` };
// The card is read apart from the transports: it needs the credential too.
const fetchWithKey = (input, init) => {
  const headers = new Headers(auth);
  new Headers(init?.headers).forEach((value, key) => headers.set(key, value));
  return fetch(input, { ...init, headers });
};

const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetchWithKey }),
    transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
    preferredTransports: [arg('transport') ?? 'JSONRPC'],
  })
);

// A 0.3 client: the SDK's compat transport, on the card's 0.3 interface alone.
const legacyFactory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetchWithKey, legacyCompat: { enabled: true } }),
    transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
  })
);

async function makeClient() {
  if (arg('legacy') !== 'true') return factory.createFromUrl(arg('url'));
  const raw = await (await fetchWithKey(new URL('.well-known/agent-card.json', arg('url')))).json();
  raw.supportedInterfaces = raw.supportedInterfaces.filter((i) => i.protocolVersion === '0.3');
  return legacyFactory.createFromAgentCard(raw);
}

const options = { serviceParameters: auth };

const message = () => ({
  messageId: arg('message-id') ?? randomUUID(),
  role: Role.ROLE_USER,
  parts: [
    ...(arg('text') !== undefined
      ? [{ content: { $case: 'text', value: arg('text') }, filename: '', mediaType: 'text/plain' }]
      : []),
    ...(arg('data') !== undefined
      ? [{ content: { $case: 'data', value: JSON.parse(arg('data')) }, filename: '', mediaType: '' }]
      : []),
  ],
  taskId: arg('task') ?? '',
  contextId: arg('context') ?? '',
  extensions: [],
  metadata: undefined,
  referenceTaskIds: [],
});

// The push config the flags describe (none without --push-url).
const pushConfig = () =>
  arg('push-url') === undefined
    ? undefined
    : {
        tenant: '',
        id: arg('push-id') ?? '',
        taskId: arg('task') ?? '',
        url: arg('push-url'),
        token: arg('push-token') ?? '',
        authentication:
          arg('push-scheme') !== undefined
            ? { scheme: arg('push-scheme'), credentials: arg('push-credentials') ?? '' }
            : undefined,
      };

const request = () => ({
  tenant: '',
  message: message(),
  configuration:
    arg('immediately') === 'true' || arg('push-url') !== undefined
      ? {
          acceptedOutputModes: [],
          returnImmediately: arg('immediately') === 'true',
          taskPushNotificationConfig: pushConfig() && { ...pushConfig(), taskId: '' },
        }
      : undefined,
  metadata: undefined,
});

async function collect(stream) {
  const seen = [];
  for await (const event of stream) seen.push(StreamResponse.toJSON(event));
  return seen;
}

async function run() {
  const client = await makeClient();
  switch (arg('call')) {
    case 'verify': {
      // The card as served, verified with the key its signature's jku publishes (jose), as the
      // SDK's own sample does; then a tampered copy, which must not verify.
      const raw = await (await fetchWithKey(new URL('.well-known/agent-card.json', arg('url')))).json();
      const header = JSON.parse(Buffer.from(raw.signatures[0].protected, 'base64url').toString());
      const verifier = verifyAgentCardSignature(async (kid, jku) => {
        const jwks = await (await fetch(jku)).json();
        return jose.importJWK(jwks.keys.find((k) => k.kid === kid), 'ES256');
      });
      await verifier(raw);
      let tampered = 'verified';
      try {
        await verifier({ ...raw, description: 'something else' });
      } catch {
        tampered = 'refused';
      }
      return { header, tampered, canonical: canonicalizeAgentCard(raw) };
    }
    case 'card':
      return AgentCard.toJSON(await client.getAgentCard());
    case 'send': {
      const answer = await client.sendMessage(request(), options);
      return 'status' in answer ? { task: Task.toJSON(answer) } : { message: Message.toJSON(answer) };
    }
    case 'stream':
      return collect(client.sendMessageStream(request(), options));
    case 'get':
      return Task.toJSON(await client.getTask({ tenant: '', id: arg('task') }, options));
    case 'cancel':
      return Task.toJSON(
        await client.cancelTask({ tenant: '', id: arg('task'), metadata: undefined }, options)
      );
    case 'subscribe':
      return collect(client.resubscribeTask({ tenant: '', id: arg('task') }, options));
    case 'list': {
      // Every page, walked by its tokens (--page-size N a page), with the filters asked.
      const pages = [];
      let pageToken = '';
      do {
        const asked = ListTasksRequest.fromJSON({
          contextId: arg('context'),
          status: arg('status'),
          pageSize: arg('page-size'),
          pageToken,
          statusTimestampAfter: arg('after'),
          includeArtifacts: arg('include-artifacts'),
        });
        const page = ListTasksResponse.toJSON(await client.listTasks(asked, options));
        pages.push(page);
        pageToken = page.nextPageToken ?? '';
      } while (pageToken && pages.length < 20);
      return pages;
    }
    case 'push-create':
      return TaskPushNotificationConfig.toJSON(
        await client.createTaskPushNotificationConfig(pushConfig(), options)
      );
    case 'push-get':
      return TaskPushNotificationConfig.toJSON(
        await client.getTaskPushNotificationConfig(
          { tenant: '', taskId: arg('task'), id: arg('push-id') ?? '' },
          options
        )
      );
    case 'push-list':
      return ListTaskPushNotificationConfigsResponse.toJSON(
        await client.listTaskPushNotificationConfig(
          { tenant: '', taskId: arg('task'), pageSize: 0, pageToken: '' },
          options
        )
      );
    case 'push-delete':
      await client.deleteTaskPushNotificationConfig(
        { tenant: '', taskId: arg('task'), id: arg('push-id') },
        options
      );
      return 'deleted';
    default:
      throw new Error(`unknown --call ${arg('call')}`);
  }
}

try {
  console.log(JSON.stringify({ result: await run() }));
} catch (error) {
  console.log(
    JSON.stringify({
      error: {
        name: error.name,
        message: error.message,
        reason: error.reason,
        ...(error.cause ? { cause: String(error.cause.message ?? error.cause) } : {}),
      },
    })
  );
}
