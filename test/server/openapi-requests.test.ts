import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, merchantApi } from '../support/sandboxHttp';

/**
 * A client or fuzzer generated from GET /openapi.json must be able to rely on it: requests
 * generated from the document, and valid by it, are never refused as invalid. Answers about the
 * market's state (no such item, price moved, balance short…) are fine: the document cannot know them.
 */

type Schema = {
  type?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
};
type Parameter = { name: string; in: string; required: boolean; schema: Schema };
type Operation = {
  operationId: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
};
type Document = { paths: Record<string, Record<string, Operation>> };

const RUNS = 60;

/** Refusals about the state of the market or the merchant, not about the request's form. */
const STATE_ANSWERS = new Set([
  'item_unavailable',
  'asset_mismatch',
  'price_changed',
  'price_too_high',
  'insufficient_balance',
  'duplicate_external_id',
  'partner_blocked',
  'too_many_active_trades',
]);

/**
 * Text within the Basic Multilingual Plane (no surrogates): the document counts lengths in UTF-16
 * code units (its descriptions say so) and JSON Schema counts code points; there both agree.
 */
const textUnit = fc.oneof(
  fc.constantFrom(...'abcXYZ019 _-.:/?&=%+#|()★™"\\'.split('')),
  fc.integer({ min: 0x20, max: 0xd7ff }).map((code) => String.fromCharCode(code)),
);

/** Values for a JSON Schema, for the keywords the document uses; the edges of each range come up often. */
function arbitraryOf(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(arbitraryOf));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const low =
        schema.exclusiveMinimum !== undefined
          ? schema.exclusiveMinimum + 1
          : (schema.minimum ?? Number.MIN_SAFE_INTEGER);
      const high = schema.maximum ?? Number.MAX_SAFE_INTEGER;
      const near = fc.integer({ min: Math.max(low, -1000), max: Math.min(high, Math.max(low, -1000) + 2000) });
      return fc.oneof(fc.constantFrom(low, high), near, fc.bigInt({ min: BigInt(low), max: BigInt(high) }).map(Number));
    }
    case 'string': {
      if (schema.pattern !== undefined) return fc.stringMatching(new RegExp(schema.pattern));
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? 50;
      return fc.oneof(
        fc.string({ unit: textUnit, minLength: min, maxLength: Math.min(max, min + 12) }),
        fc.string({ unit: textUnit, minLength: max, maxLength: max }),
      );
    }
    case 'array': {
      const items = arbitraryOf(schema.items ?? {});
      const min = schema.minItems ?? 0;
      const max = schema.maxItems ?? 10;
      return fc.oneof(
        fc.array(items, { minLength: min, maxLength: Math.min(max, min + 4) }),
        fc.array(items, { minLength: max, maxLength: max }),
      );
    }
    case 'object': {
      const properties = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, value]) => [key, arbitraryOf(value)]),
      );
      const record = (required: string[]) => fc.record(properties, { requiredKeys: required });
      const base = schema.required ?? [];
      if (!schema.oneOf) return record(base);
      return fc.oneof(...schema.oneOf.map((branch) => record([...base, ...(branch.required ?? [])])));
    }
    default:
      throw new Error(`the document uses a schema this generator does not know: ${JSON.stringify(schema)}`);
  }
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** RFC 3339 date-time's calendar rule (the document's patterns already fix the rest of the form). */
function isRealDateTime(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})T/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day >= 1 && day <= days;
}

describe('the OpenAPI document: requests valid by it are accepted', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let merchant: MerchantCredentials;
  let doc: Document;
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  ajv.addFormat('date-time', isRealDateTime);
  let sent = 0;

  beforeAll(async () => {
    sb = await startSandbox({ items: 50, seed: 21 });
    admin = adminApi(sb);
    merchant = await admin.createMerchant({ balance: 1_000_000 });
    doc = (await (await fetch(`${sb.baseUrl}/openapi.json`)).json()) as Document;
  });
  afterAll(() => sb.close());

  /** Sends one request, staying under the 300/min limit by moving the sandbox clock past the window. */
  async function send(method: string, path: string, query: string, body: unknown) {
    if (++sent % 250 === 0) await admin.advance(61);
    const api = merchantApi(sb, merchant);
    return method === 'post' ? api.post(path, body) : api.get(`${path}${query}`);
  }

  function expectAccepted(answer: { status: number; body: unknown }, request: unknown): void {
    const context = JSON.stringify({ request, answer: answer.body });
    if (answer.status === 200) return;
    expect([400, 403], context).toContain(answer.status);
    expect(STATE_ANSWERS.has((answer.body as { error: string }).error), context).toBe(true);
  }

  function operations(): [string, string, Operation][] {
    return Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => [path, method, op] as [string, string, Operation]),
    );
  }

  it('covers every endpoint', () => {
    expect(
      operations()
        .map(([, , op]) => op.operationId)
        .sort(),
    ).toEqual(
      ['balanceHistory', 'buy', 'buyByName', 'getAllItemsOnSale', 'getBalance', 'searchItems', 'tradeHistory'].sort(),
    );
  });

  it.each(['searchItems', 'buy', 'buyByName'])(
    '%s: generated bodies valid by the document are not refused',
    async (operationId) => {
      const [path, method, op] = operations().find(([, , o]) => o.operationId === operationId) ?? [];
      const schema = op?.requestBody?.content['application/json'].schema;
      if (!path || !method || !schema) throw new Error(`${operationId}: no request body in the document`);
      const valid = ajv.compile(schema);
      await fc.assert(
        fc.asyncProperty(arbitraryOf(schema), async (body) => {
          fc.pre(valid(body));
          expectAccepted(await send(method, path, '', body), body);
        }),
        { numRuns: RUNS },
      );
    },
  );

  it.each(['tradeHistory', 'balanceHistory'])(
    '%s: generated queries valid by the document are not refused',
    async (operationId) => {
      const [path, method, op] = operations().find(([, , o]) => o.operationId === operationId) ?? [];
      const parameters = op?.parameters ?? [];
      if (!path || !method || parameters.length === 0)
        throw new Error(`${operationId}: no query parameters in the document`);
      // JSON Schema cannot compare two parameters: the document states these rules in words, a generated client follows them.
      expect(op?.description).toContain('`from` must not be after `to`');
      if (parameters.some((p) => p.name === 'isActive'))
        expect(op?.description).toContain('`isActive=true` cannot be combined with `from` or `to`');
      const validators = new Map(parameters.map((p) => [p.name, ajv.compile(p.schema)]));
      const query = fc.record(Object.fromEntries(parameters.map((p) => [p.name, arbitraryOf(p.schema)])), {
        requiredKeys: [],
      });
      await fc.assert(
        fc.asyncProperty(query, async (values) => {
          fc.pre(Object.entries(values).every(([name, value]) => validators.get(name)?.(value) === true));
          const { from, to, isActive } = values as { from?: string; to?: string; isActive?: string };
          fc.pre(from === undefined || to === undefined || Date.parse(from) <= Date.parse(to));
          fc.pre(!(isActive === 'true' && (from !== undefined || to !== undefined)));
          const search = new URLSearchParams(
            Object.entries(values).map(([name, value]) => [name, String(value)]),
          ).toString();
          expectAccepted(await send(method, path, search ? `?${search}` : '', undefined), values);
        }),
        { numRuns: RUNS },
      );
    },
  );

  it.each(['getBalance', 'getAllItemsOnSale'])(
    '%s: the request without parameters is accepted',
    async (operationId) => {
      const [path, method, op] = operations().find(([, , o]) => o.operationId === operationId) ?? [];
      if (!path || !method) throw new Error(`${operationId} missing`);
      expect(op?.parameters).toBeUndefined();
      expect(op?.requestBody).toBeUndefined();
      expect((await send(method, path, '', undefined)).status).toBe(200);
    },
  );
});
