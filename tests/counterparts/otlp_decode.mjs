// Decodes OTLP/HTTP trace exports with the official OpenTelemetry JavaScript packages (pinned:
// @opentelemetry/otlp-transformer, whose message code protobufjs generated from the official
// OTLP protos). Used by the tests to read what agentgate exports.
//   node otlp_decode.mjs FILE [--gzip]   prints the ExportTraceServiceRequest as one JSON line
// Ids are lower-case hex, 64-bit numbers strings, enums their names.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const entry = require.resolve('@opentelemetry/otlp-transformer');
const root = require(path.join(path.dirname(entry), 'generated', 'root.js'));
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const hex = (base64) => Buffer.from(base64 ?? '', 'base64').toString('hex');

export function decodeTraces(bytes) {
  const message = Request.decode(bytes);
  const out = Request.toObject(message, { longs: String, enums: String, bytes: String });
  for (const resourceSpans of out.resourceSpans ?? []) {
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        span.traceId = hex(span.traceId);
        span.spanId = hex(span.spanId);
        if (span.parentSpanId !== undefined) span.parentSpanId = hex(span.parentSpanId);
      }
    }
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let bytes = fs.readFileSync(process.argv[2]);
  if (process.argv.includes('--gzip')) bytes = zlib.gunzipSync(bytes);
  console.log(JSON.stringify(decodeTraces(bytes)));
}
