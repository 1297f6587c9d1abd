// Records the shared scenario (instrumentation/_scenario.py) on the Vercel AI SDK, with the SDK's own
// `experimental_telemetry` spans, and writes them as OTLP JSON (the OpenTelemetry JS exporter's JSON
// serializer: an ExportTraceServiceRequest).
//
//   node record.mjs SCRIPT.json OUT.json
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

import { runScenario } from './scenario.mjs';

const [scriptPath, outPath] = process.argv.slice(2);
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

const result = await runScenario(script);

await provider.forceFlush();
const spans = exporter.getFinishedSpans();
writeFileSync(outPath, Buffer.from(JsonTraceSerializer.serializeRequest(spans)));
await provider.shutdown();
process.stdout.write(JSON.stringify({ output: result.text, spans: spans.length }) + '\n');
