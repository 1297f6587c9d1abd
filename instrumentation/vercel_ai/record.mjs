// Records the shared scenario (instrumentation/_scenario.py) on the Vercel AI SDK, with the SDK's own
// `experimental_telemetry` spans, and writes them as OTLP JSON (the OpenTelemetry JS exporter's JSON
// serializer: an ExportTraceServiceRequest).
//
//   node record.mjs SCRIPT.json OUT.json [READABLE.json]
//
// READABLE.json, when given, gets the same spans as the JS SDK holds them in memory: each span's
// ReadableSpan interface (spanContext(), parentSpanContext, HrTime pairs, numeric kind and status code)
// written with JSON.stringify, as test harnesses save InMemorySpanExporter's spans.
//
// SCRIPT.json is the scenario as instrumentation/_scenario.py writes it (tests/conformance/
// test_vercel_ai.py makes it): prompt, instructions, model names, the scripted turns with their usage.
// The models are the SDK's own MockLanguageModelV3 (`ai/test`): no network, no keys.
import { readFileSync, writeFileSync } from 'node:fs';

import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';

const [scriptPath, outPath, readablePath] = process.argv.slice(2);
if (!scriptPath || !outPath) {
  throw new Error('usage: node record.mjs SCRIPT.json OUT.json');
}
const script = JSON.parse(readFileSync(scriptPath, 'utf8'));

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'vercel-ai-scenario' }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
// the SDK looks its tracer up on the global API (`trace.getTracer('ai')`), and nests spans through the
// active context: async hooks carry it into a tool's execute, so a nested generateText nests
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);

/** A scripted MockLanguageModelV3: its n-th call plays the n-th turn. */
function scriptedModel(modelId, turns) {
  let calls = 0;
  return new MockLanguageModelV3({
    provider: 'scripted',
    modelId,
    doGenerate: async () => {
      const index = calls++;
      const turn = turns[index];
      if (turn === undefined) {
        throw new Error(`the script has only ${turns.length} model calls`);
      }
      const content = turn.tool
        ? [
            {
              type: 'tool-call',
              toolCallId: `call_${index}_${turn.tool}`,
              toolName: turn.tool,
              input: JSON.stringify(turn.args),
            },
          ]
        : [{ type: 'text', text: turn.text }];
      return {
        content,
        finishReason: { unified: turn.tool ? 'tool-calls' : 'stop', raw: undefined },
        usage: {
          inputTokens: { total: turn.input_tokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: turn.output_tokens, text: undefined, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
}

/** The ReadableSpan interface of a finished span, as plain data (the span object itself holds its
 * processor, which holds the exporter: it cannot be written as it is). */
function readable(span) {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    ended: span.ended,
    status: span.status,
    attributes: span.attributes,
    links: span.links,
    events: span.events,
    resource: { attributes: span.resource.attributes },
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** `experimental_telemetry` of an agent: its functionId names it; metadata repeats it. */
function telemetry(agent) {
  return { isEnabled: true, functionId: agent, metadata: { agent } };
}

async function runHelper(question) {
  const result = await generateText({
    model: scriptedModel(script.helper_model, script.helper_turns),
    system: script.helper_instructions,
    prompt: question,
    experimental_telemetry: telemetry('helper'),
  });
  return result.text;
}

const tools = {
  get_weather: tool({
    description: 'Current weather in a city.',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => `Sunny, 21C in ${city}`,
  }),
  explode: tool({
    description: 'Always fails.',
    inputSchema: z.object({}),
    execute: async () => {
      throw new Error(script.explode_message);
    },
  }),
  ask_helper: tool({
    description: 'Ask the helper agent.',
    inputSchema: z.object({ question: z.string() }),
    execute: async ({ question }) => runHelper(question),
  }),
};

const result = await generateText({
  model: scriptedModel(script.orchestrator_model, script.orchestrator_turns),
  system: script.orchestrator_instructions,
  prompt: script.prompt,
  tools,
  stopWhen: stepCountIs(10),
  experimental_telemetry: telemetry('orchestrator'),
});

await provider.forceFlush();
const spans = exporter.getFinishedSpans();
writeFileSync(outPath, Buffer.from(JsonTraceSerializer.serializeRequest(spans)));
if (readablePath) {
  writeFileSync(readablePath, JSON.stringify(spans.map(readable), null, 1));
}
await provider.shutdown();
process.stdout.write(JSON.stringify({ output: result.text, spans: spans.length }) + '\n');
