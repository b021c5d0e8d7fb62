import { z } from 'zod';
import { API_ERROR_CODES, ENDPOINTS, errorEnvelopeSchema } from '../../shared/api';

type JsonSchema = Record<string, unknown>;

/** A preprocessed schema (z.preprocess) is documented by what it validates: its output side. */
function documented(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodPipe && schema.in instanceof z.ZodTransform ? (schema.out as z.ZodType) : schema;
}

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(documented(schema), { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function queryParameters(schema: z.ZodType): JsonSchema[] {
  const json = schemaOf(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * The OpenAPI 3.1 document of the public API, generated from the same zod
 * schemas that the sandbox validates with and the client parses with.
 */
export function buildOpenApiDocument(serverUrl: string): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  const schemas: Record<string, JsonSchema> = {
    Error: { ...schemaOf(errorEnvelopeSchema, 'output'), description: `error is one of: ${API_ERROR_CODES.join(', ')}` },
  };
  for (const [name, endpoint] of Object.entries(ENDPOINTS)) {
    const responseName = `${name[0]?.toUpperCase()}${name.slice(1)}Response`;
    schemas[responseName] = schemaOf(endpoint.response, 'output');
    const operation: JsonSchema = {
      operationId: name,
      summary: endpoint.summary,
      security: [{ apiKey: [], merchantId: [] }],
      'x-rate-limit-per-minute': endpoint.bucket === 'catalog' ? 10 : 300,
      responses: {
        '200': { description: 'Success', content: { 'application/json': { schema: { $ref: `#/components/schemas/${responseName}` } } } },
        '400': errorResponse('Bad request, invalid parameters'),
        '401': errorResponse('Invalid or missing API key or merchant id'),
        '403': errorResponse('IP not allowed, partner blocked, or too many active trades'),
        '429': errorResponse('Rate limited (Retry-After header)'),
        '500': errorResponse('Internal server error'),
        '503': errorResponse('Maintenance'),
      },
    };
    if ('body' in endpoint) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: schemaOf(endpoint.body, 'input') } } };
    }
    if ('query' in endpoint) operation.parameters = queryParameters(endpoint.query);
    paths[endpoint.path] = { [endpoint.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Merchant Trading API (sandbox)',
      version: '2026-10-04',
      description: 'Generated from the zod schemas in src/shared/api. Money in integer USD cents; timestamps UTC ISO 8601 with milliseconds.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        merchantId: { type: 'apiKey', in: 'header', name: 'x-merchant-id' },
      },
      schemas,
    },
    paths,
  };
}
