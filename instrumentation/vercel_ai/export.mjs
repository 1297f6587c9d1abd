// Runs the shared scenario (scenario.mjs) and exports its spans over OTLP with the OpenTelemetry JS
// exporters, as a Node app under test would: to the endpoint and protocol the OTEL_EXPORTER_OTLP_*
// variables name (http/protobuf: exporter-trace-otlp-proto; http/json: exporter-trace-otlp-http), its
// first span in the context TRACEPARENT names (OpenTelemetry's environment-variable carrier).
//
//   node export.mjs SCRIPT.json
import { readFileSync } from 'node:fs';

import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

import { runScenario } from './scenario.mjs';

const [scriptPath] = process.argv.slice(2);
if (!scriptPath) {
  throw new Error('usage: node export.mjs SCRIPT.json');
}
const script = JSON.parse(readFileSync(scriptPath, 'utf8'));

// the exporters read OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT themselves
const json = process.env.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/json';
const exporter = json ? new JsonExporter() : new ProtoExporter();
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'vercel-ai-scenario' }),
  spanProcessors: [new BatchSpanProcessor(exporter)],
});
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const parent = propagation.extract(context.active(), { traceparent: process.env.TRACEPARENT ?? '' });
const result = await context.with(parent, () => runScenario(script));
await provider.shutdown(); // flushes the batch before the process ends
process.stdout.write(JSON.stringify({ output: result.text }) + '\n');
