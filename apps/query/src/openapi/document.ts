import { apiSettings } from '@aos/config';
import { componentSchemasOf, jsonSchemaOf, type JsonSchema, type SchemaNames } from './json-schema.ts';
import type { Answer, Operation } from './operation.ts';
import { apiKey, apiKeyOperations, createdApiKey } from './operations/api-keys.ts';
import { deadLetter, deadLetterOperations } from './operations/dead-letters.ts';
import { exportTraceServiceRequest, exportTraceServiceResponse, ingestOperations, rpcStatus } from './operations/ingest.ts';
import { scoreConfig, scoreConfigOperations } from './operations/score-configs.ts';
import { serviceOperations } from './operations/service.ts';
import { dimensionOperations } from './operations/trace-dimensions.ts';
import { retentionOperations } from './operations/trace-retention.ts';
import { backfill, evaluator, evaluatorOperations } from './operations/trace-evaluators.ts';
import { finding, findingDetail, findingOperations, riskAssessment } from './operations/trace-findings.ts';
import { maskingOperations, maskingPolicy, maskingPolicyBody } from './operations/trace-masking.ts';
import { metricOperations, metricSeries } from './operations/trace-metrics.ts';
import { monitor, monitorEvent, monitorOperations } from './operations/trace-monitors.ts';
import { scoreOperations } from './operations/trace-scores.ts';
import { exportRecord, sessionDetail, sessionListItem, spanDetail, spanListItem, spanNode, timeseries, trace, traceDetail, traceListItem, traceOperations, traceSummary } from './operations/traces.ts';
import { traceView, viewOperations } from './operations/trace-views.ts';
import { errorEnvelope, score } from './shared-schemas.ts';

/** Every operation, by tag: one registry module per route folder of the query app, plus ingest's and the service's own. */
export const OPERATION_GROUPS: ReadonlyArray<{ tag: string; description: string; operations: Operation[] }> = [
  { tag: 'ingest', description: 'OTLP/HTTP receivers of traces, logs and metrics (ingest app and all-in-one process)', operations: ingestOperations },
  { tag: 'traces', description: 'Traces, spans, sessions, summaries, timeseries, exports', operations: traceOperations },
  { tag: 'trace-scores', description: 'Scores of traces, spans and sessions', operations: scoreOperations },
  { tag: 'score-configs', description: 'What scores of a name must be', operations: scoreConfigOperations },
  { tag: 'trace-monitors', description: 'Measures watched over a rolling window, with alerts and webhooks', operations: monitorOperations },
  { tag: 'trace-findings', description: 'Problems worth investigating', operations: findingOperations },
  { tag: 'trace-evaluators', description: 'Automatic judges: model judges and checks, runs, backfills', operations: evaluatorOperations },
  { tag: 'trace-masking', description: "The project's masking policy, applied at ingest", operations: maskingOperations },
  { tag: 'trace-dimensions', description: 'Metadata keys to filter and group by', operations: dimensionOperations },
  { tag: 'trace-views', description: 'Saved trace filters with sort and columns', operations: viewOperations },
  { tag: 'trace-retention', description: "How long the project's traces are kept", operations: retentionOperations },
  { tag: 'trace-metrics', description: 'GenAI metrics sent over OTLP (token usage, durations)', operations: metricOperations },
  { tag: 'api-keys', description: 'Keys of a project (admin)', operations: apiKeyOperations },
  { tag: 'dead-letters', description: 'Span batches that failed for good (admin)', operations: deadLetterOperations },
  { tag: 'service', description: 'Liveness, readiness, metrics and this document', operations: serviceOperations },
];

/** Schemas the document names under components; wherever one appears it is referred to. */
const NAMED: SchemaNames = {
  Error: errorEnvelope,
  Trace: trace,
  TraceListItem: traceListItem,
  TraceDetail: traceDetail,
  SpanNode: spanNode,
  SpanListItem: spanListItem,
  SpanDetail: spanDetail,
  TraceSummary: traceSummary,
  SessionListItem: sessionListItem,
  SessionDetail: sessionDetail,
  Timeseries: timeseries,
  MetricSeries: metricSeries,
  ExportRecord: exportRecord,
  Score: score,
  ScoreConfig: scoreConfig,
  ApiKey: apiKey,
  CreatedApiKey: createdApiKey,
  DeadLetter: deadLetter,
  MaskingPolicy: maskingPolicy,
  MaskingPolicyBody: maskingPolicyBody,
  TraceView: traceView,
  Monitor: monitor,
  MonitorEvent: monitorEvent,
  Finding: finding,
  FindingDetail: findingDetail,
  RiskAssessment: riskAssessment,
  Evaluator: evaluator,
  Backfill: backfill,
  ExportTraceServiceRequest: exportTraceServiceRequest,
  ExportTraceServiceResponse: exportTraceServiceResponse,
  GoogleRpcStatus: rpcStatus,
};

const ERROR_STATUSES: Record<number, string> = {
  400: 'invalid_request: a parameter or the body is invalid; details name each field',
  401: 'unauthorized: missing, unknown or revoked key',
  403: "forbidden: the key lacks the scope, or names another project's data",
  404: 'not_found',
  409: 'conflict',
  422: 'unprocessable: well formed, but refused (details say why)',
  503: 'unavailable: details name what does not answer',
};

const errorAnswer = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function answerObject(answer: Answer) {
  const content: Record<string, { schema: JsonSchema }> = {
    ...(answer.json ? { 'application/json': { schema: jsonSchemaOf(answer.json, NAMED) } } : {}),
    ...answer.content,
  };
  return {
    description: answer.description,
    ...(Object.keys(content).length > 0 ? { content } : {}),
    ...(answer.headers ? { headers: answer.headers } : {}),
  };
}

function pathParameters(op: Operation) {
  return [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
    const description = op.pathParams?.[name!];
    if (!description) throw new Error(`${op.method.toUpperCase()} ${op.path}: path parameter ${name} is not described`);
    return { name: name!, in: 'path', required: true, description, schema: { type: 'string' } };
  });
}

function requestBody(op: Operation) {
  if (op.requestContent) return { required: true, content: op.requestContent };
  if (!op.body) return undefined;
  return {
    required: !op.bodyOptional,
    description: `${bodyLimitOf(op)}; a larger one is answered 413 \`payload_too_large\` as soon as it passes the limit.`,
    content: { 'application/json': { schema: jsonSchemaOf(op.body, NAMED) } },
  };
}

/** The size a JSON body may have: the route's own limit, else the API's (the setting's default shown). */
function bodyLimitOf(op: Operation): string {
  const bytes = (n: number) => `${n.toLocaleString('en-US')} bytes`;
  if (op.maxBodyBytes) return `At most ${bytes(op.maxBodyBytes)} (or \`API_MAX_BODY_BYTES\` when lower)`;
  return `At most \`API_MAX_BODY_BYTES\` (${bytes(apiSettings({}).maxBodyBytes)} by default)`;
}

/** A stable id for client generators: method and path words, `get_api_v1_traces_traceId`. */
function operationId(op: Operation): string {
  return [op.method, ...op.path.split(/[^A-Za-z0-9]+/).filter(Boolean)].join('_');
}

/** What key an operation needs: `admin` covers read and write; `ingest` is its own scope. */
function scopeNote(scope: Operation['scope']): string {
  if (!scope) return '';
  const admin = scope === 'read' || scope === 'write' ? ' (or `admin`)' : '';
  return `Needs a key with the \`${scope}\` scope${admin}, sent as the x-api-key header.`;
}

function operationObject(op: Operation, tag: string) {
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(op.responses)) responses[status] = answerObject(answer);
  if (!op.ownErrors) {
    const statuses = [...(op.scope ? [400, 401, 403] : []), ...(op.errors ?? [])];
    for (const status of statuses) responses[status] ??= errorAnswer(ERROR_STATUSES[status] ?? 'error');
    if (op.body) responses[413] ??= errorAnswer(`payload_too_large: the body is over its limit. ${bodyLimitOf(op)}`);
    responses.default = errorAnswer('Any other error (429, 500, 503…), in the same envelope');
  }
  const parameters = [...pathParameters(op), ...(op.query ?? [])];
  const body = requestBody(op);
  return {
    operationId: operationId(op),
    tags: [tag],
    summary: op.summary,
    ...(op.description || op.scope ? { description: [op.description, scopeNote(op.scope)].filter(Boolean).join('\n\n') } : {}),
    ...(op.scope ? { security: [{ apiKey: [] }], 'x-scope': op.scope } : { security: [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

/** The OpenAPI 3.1 document of the service's HTTP API. */
export function buildOpenApiDocument() {
  const paths: Record<string, Record<string, ReturnType<typeof operationObject>>> = {};
  for (const group of OPERATION_GROUPS) {
    for (const op of group.operations) {
      const item = (paths[op.path] ??= {});
      if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is described twice`);
      item[op.method] = operationObject(op, group.tag);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent observability service',
      version: '1',
      description:
        'OpenTelemetry traces from AI agents in, queries out. Errors share one envelope (`Error`); the OTLP receiver answers in OTLP\'s own shapes. Guide: docs/api.md.',
    },
    tags: OPERATION_GROUPS.map(({ tag, description }) => ({ name: tag, description })),
    paths,
    components: {
      schemas: componentSchemasOf(NAMED),
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    },
  };
}

let built: OpenApiDocument | undefined;

/** The document, built once per process (it depends on nothing but the code). */
export function openApiDocument(): OpenApiDocument {
  built ??= buildOpenApiDocument();
  return built;
}
