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

import { runScenario } from './scenario.mjs';

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

const result = await runScenario(script);

await provider.forceFlush();
const spans = exporter.getFinishedSpans();
writeFileSync(outPath, Buffer.from(JsonTraceSerializer.serializeRequest(spans)));
if (readablePath) {
  writeFileSync(readablePath, JSON.stringify(spans.map(readable), null, 1));
}
await provider.shutdown();
process.stdout.write(JSON.stringify({ output: result.text, spans: spans.length }) + '\n');
