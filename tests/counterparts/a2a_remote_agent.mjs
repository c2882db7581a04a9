// A remote A2A agent built on the official SDK's server (@a2a-js/sdk, pinned), for the black-box
// tests of remote A2A agents as tools (docs/a2a.md): "Billing", a JSON-RPC 1.0 interface at /rpc
// and its card at /.well-known/agent-card.json.
//   node a2a_remote_agent.mjs --port P [--key K] [--interface-url URL] [--streaming true]
//                             [--piece-ms 50]
// --key: the interface answers 401 without `Authorization: Bearer K` (the card is public).
// --interface-url: the card names this interface instead of its own (another origin, say).
// --streaming: the card says it streams, and a reply comes as a working status, then six
// artifact updates --piece-ms apart, then the completed status. A task canceled meanwhile stops
// and prints {"canceled": its id}.
// Its executor: a message that asks for a balance without naming an account ("A-...") waits for
// input ("Which account?"); the answer, or any message naming one, completes with the balance;
// anything else is answered "Billing heard: <text>" (streamed, 600 characters of it). Prints one JSON line per message it is sent:
// {text, task_id, authorization}.
import {
  AgentCard,
  Message,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
} from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import express from 'express';
import { randomUUID } from 'node:crypto';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};
const port = Number(arg('port'));
const origin = `http://127.0.0.1:${port}`;

const card = AgentCard.fromJSON({
  name: 'Billing',
  description: 'Reads account balances.',
  version: '1',
  supportedInterfaces: [
    { url: arg('interface-url') ?? `${origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: arg('streaming') === 'true', pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'balance', name: 'balance', description: 'The balance of an account', tags: ['billing'] }],
});

const textOf = (message) =>
  (message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

const agentMessage = (taskId, contextId, text) =>
  Message.fromJSON({
    messageId: randomUUID(),
    role: 'ROLE_AGENT',
    parts: [{ text }],
    taskId,
    contextId,
  });

let seenAuthorization = null;

// The reply as a stream: working, six pieces of 100 characters, then completed.
const canceled = new Set();

async function streamReply(bus, taskId, contextId, reply, base) {
  bus.publish(AgentEvent.task(base('TASK_STATE_WORKING', null)));
  const whole = reply.padEnd(600, '.');
  for (let i = 0; i < 6; i++) {
    await new Promise((done) => setTimeout(done, Number(arg('piece-ms') ?? 50)));
    if (canceled.has(taskId)) return;
    bus.publish(
      AgentEvent.artifactUpdate(
        TaskArtifactUpdateEvent.fromJSON({
          taskId,
          contextId,
          artifact: { artifactId: 'reply', parts: [{ text: whole.slice(i * 100, i * 100 + 100) }] },
          append: i > 0,
          lastChunk: i === 5,
        })
      )
    );
  }
  bus.publish(
    AgentEvent.statusUpdate(
      TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status: { state: 'TASK_STATE_COMPLETED' } })
    )
  );
  bus.finished();
}

const executor = {
  async execute(requestContext, bus) {
    const { taskId, contextId } = requestContext;
    const text = textOf(requestContext.userMessage);
    console.log(JSON.stringify({ text, task_id: taskId, authorization: seenAuthorization }));
    const waiting = requestContext.task?.status?.state === 'TASK_STATE_INPUT_REQUIRED';
    const account = text.match(/A-\d+/)?.[0] ?? (waiting ? text : null);
    const base = (state, message, artifacts = []) =>
      Task.fromJSON({
        id: taskId,
        contextId,
        status: { state, message: message && Message.toJSON(message), timestamp: new Date().toISOString() },
        artifacts,
        history: [],
      });
    if (/balance/i.test(text) && !account) {
      bus.publish(AgentEvent.task(base('TASK_STATE_INPUT_REQUIRED', agentMessage(taskId, contextId, 'Which account?'))));
      bus.finished();
      return;
    }
    const reply = account ? `The balance of ${account} is 12.00 EUR.` : `Billing heard: ${text}`;
    if (arg('streaming') === 'true' && !account) {
      await streamReply(bus, taskId, contextId, reply, base);
      return;
    }
    bus.publish(
      AgentEvent.task(
        base('TASK_STATE_COMPLETED', null, [{ artifactId: 'reply', parts: [{ text: reply }] }])
      )
    );
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    canceled.add(taskId);
    console.log(JSON.stringify({ canceled: taskId }));
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({ taskId, status: { state: 'TASK_STATE_CANCELED' } })
      )
    );
    bus.finished();
  },
};

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
app.use('/rpc', (req, res, next) => {
  seenAuthorization = req.headers.authorization ?? null;
  if (arg('key') && req.headers.authorization !== `Bearer ${arg('key')}`) {
    res.status(401).json({ error: 'unauthorized' });
    return;
  }
  next();
});
app.use('/rpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
app.listen(port, '127.0.0.1', () => console.error('listening'));
