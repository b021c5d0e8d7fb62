import { z } from 'zod';
import type { EndpointName } from '../../shared/api';
import { API_ERROR_CODES, ENDPOINTS, errorEnvelopeSchema } from '../../shared/api';
import { BODY_RULES, QUERY_RULES } from './openapiRules';

type JsonSchema = Record<string, unknown>;

/** A preprocessed schema (z.preprocess) is documented by what it validates: its output side. */
function documented(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodPipe && schema.in instanceof z.ZodTransform ? (schema.out as z.ZodType) : schema;
}

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(documented(schema), {
    io,
    unrepresentable: 'any',
  }) as JsonSchema;
  return rest;
}

type ObjectSchema = { properties?: Record<string, JsonSchema>; required?: string[] };

/**
 * One parameter per property. A whole number arrives as a string but is documented as the
 * integer it must parse to (the output side, with its range); everything else as sent.
 */
function queryParameters(name: EndpointName, schema: z.ZodType): JsonSchema[] {
  const input = schemaOf(schema, 'input') as ObjectSchema;
  const output = schemaOf(schema, 'output') as ObjectSchema;
  const rules = QUERY_RULES[name]?.parameters ?? {};
  return Object.entries(input.properties ?? {}).map(([parameter, sent]) => {
    const parsed = output.properties?.[parameter];
    const base = parsed?.type === 'integer' ? parsed : sent;
    const { description, ...keywords } = rules[parameter] ?? {};
    return {
      name: parameter,
      in: 'query',
      required: input.required?.includes(parameter) ?? false,
      ...(description === undefined ? {} : { description }),
      schema: { ...base, ...keywords },
    };
  });
}

/** The request body's schema with the rules its zod shape cannot express (openapiRules.ts). */
function bodySchema(name: EndpointName, schema: z.ZodType): JsonSchema {
  const json = schemaOf(schema, 'input') as JsonSchema & ObjectSchema;
  const rules = BODY_RULES[name];
  if (!rules) return json;
  const properties = Object.fromEntries(
    Object.entries(json.properties ?? {}).map(([property, value]) => [
      property,
      documentedProperty(value, rules.properties?.[property]),
    ]),
  );
  return { ...json, ...rules.schema, properties };
}

/** Adds keywords to a property; for a nullable one (anyOf [T, null]) to its non-null branch, the description on top. */
function documentedProperty(value: JsonSchema, rule: JsonSchema | undefined): JsonSchema {
  if (!rule) return value;
  const { description, ...keywords } = rule;
  const withDescription = description === undefined ? {} : { description };
  const branches = value.anyOf;
  if (Array.isArray(branches)) {
    const anyOf = branches.map((branch: JsonSchema) => (branch.type === 'null' ? branch : { ...branch, ...keywords }));
    return { ...value, anyOf, ...withDescription };
  }
  return { ...value, ...keywords, ...withDescription };
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
    Error: {
      ...schemaOf(errorEnvelopeSchema, 'output'),
      description: `error is one of: ${API_ERROR_CODES.join(', ')}`,
    },
  };
  for (const [name, endpoint] of Object.entries(ENDPOINTS) as [EndpointName, (typeof ENDPOINTS)[EndpointName]][]) {
    const responseName = `${name[0]?.toUpperCase()}${name.slice(1)}Response`;
    schemas[responseName] = schemaOf(endpoint.response, 'output');
    const operation: JsonSchema = {
      operationId: name,
      summary: endpoint.summary,
      security: [{ apiKey: [], merchantId: [] }],
      'x-rate-limit-per-minute': endpoint.bucket === 'catalog' ? 10 : 300,
      responses: {
        '200': {
          description: 'Success',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${responseName}` } } },
        },
        '400': errorResponse('Bad request, invalid parameters'),
        '401': errorResponse('Invalid or missing API key or merchant id'),
        '403': errorResponse('IP not allowed, partner blocked, or too many active trades'),
        '408': errorResponse('request_timeout: the headers or the whole request did not arrive in time (sandbox)'),
        '429': errorResponse("Rate limited (Retry-After header): the merchant's requests per minute"),
        '500': errorResponse('Internal server error'),
        '503': errorResponse('Maintenance'),
      },
    };
    if ('body' in endpoint) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: bodySchema(name, endpoint.body) } },
      };
    }
    if ('query' in endpoint) {
      operation.parameters = queryParameters(name, endpoint.query);
      const between = QUERY_RULES[name]?.description;
      if (between) operation.description = between;
    }
    paths[endpoint.path] = { [endpoint.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Merchant Trading API (sandbox)',
      version: '2026-10-04',
      description:
        'Generated from the zod schemas in src/shared/api. Money in integer USD cents; timestamps UTC ISO 8601 with milliseconds.',
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
