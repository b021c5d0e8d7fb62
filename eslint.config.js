// @ts-check
import { builtinModules } from 'node:module';
import path from 'node:path';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// ---------------------------------------------------------------------------
// Layering. Each file gets at most ONE `no-restricted-imports` entry (flat config
// replaces, not merges, a rule's options), so every layer lists all of its bans.
// ---------------------------------------------------------------------------

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const anyOf = (names) => names.map(escape).join('|');

const ELECTRON = {
  regex: '^electron(/.*)?$',
  message: 'Only the Electron shell (src/main outside core/, src/preload) may import electron.',
};
const NODE_PACKAGES = `(${anyOf(['better-sqlite3', 'ws', 'keytar', 'fastify', '@fastify'])})(/.*)?`;
const NODE_ONLY = {
  // Builtins with or without the node: prefix and their subpaths (fs/promises), plus
  // packages that only work in Node.
  regex: `^(node:.*|(${anyOf(builtinModules)})(/.*)?|${NODE_PACKAGES})$`,
  message: 'Node-only module: this layer must also run in the browser renderer.',
};
// A sandboxed preload can require only these builtins (and electron).
const PRELOAD_ALLOWED = ['events', 'timers', 'url'];
const PRELOAD_NODE = {
  regex: `^(?!(node:)?(${anyOf(PRELOAD_ALLOWED)})$)(node:.*|(${anyOf(builtinModules)})(/.*)?|${NODE_PACKAGES})$`,
  message: `A sandboxed preload may only use electron and ${PRELOAD_ALLOWED.join('/')}.`,
};

// The renderer's bundle stays small (start-up parses it): zod is validated in main, so the renderer
// imports schemas' types only, and the API's values from shared/api/values.ts. A shared module that
// imports a schema reaches the bundle past this rule: test/shell/build.test.ts finds no zod in it.
const RENDERER_ZOD = {
  regex:
    '^(zod(/.*)?|(\\.\\./)+shared/api(/(index|enums|requests|resources|events|endpoints))?|(\\.\\./)+shared/ipc/(contract|deepLinks|events|models|schemaFields|[a-z]+Schemas))$',
  allowTypeImports: true,
  message: 'Would bundle zod into the renderer: import types with `import type`, values from shared/api/values.',
};

const restrict = (...patterns) => ['error', { patterns }];
const TS = '**/*.{ts,tsx,mts,cts}';

const layers = [
  { name: 'layering/main-core', files: [`src/main/core/${TS}`], rule: restrict(ELECTRON) },
  { name: 'layering/server', files: [`src/server/${TS}`], rule: restrict(ELECTRON) },
  { name: 'layering/web', files: [`src/web/${TS}`], rule: restrict(ELECTRON) },
  { name: 'layering/shared', files: [`src/shared/${TS}`], rule: restrict(ELECTRON, NODE_ONLY) },
  { name: 'layering/renderer', files: [`src/renderer/${TS}`], rule: restrict(ELECTRON, NODE_ONLY, RENDERER_ZOD) },
  { name: 'layering/preload', files: [`src/preload/${TS}`], rule: restrict(PRELOAD_NODE) },
].map(({ name, files, rule }) => ({ name, files, rules: { 'no-restricted-imports': rule } }));

// Cross-layer relative imports (../../main/core/x) are checked on the RESOLVED path, so
// depth does not matter and src/renderer/src/main.tsx is not mistaken for src/main.
const SRC = path.join(import.meta.dirname, 'src');
// The engine (src/main/core) is a layer of its own: the hosts (the shell, the web host) own the demo
// sandbox and hand the engine its account, so it imports none of them.
const FORBIDDEN_TARGETS = {
  shared: ['main', 'main/core', 'server', 'renderer', 'web', 'preload'],
  renderer: ['main', 'main/core', 'server', 'web', 'preload'],
  'main/core': ['main', 'server', 'renderer', 'web', 'preload'],
};
const layerOf = (file) => {
  const [first, second] = path.relative(SRC, file).split(path.sep);
  return first === 'main' && second === 'core' ? 'main/core' : first;
};

/** @type {import('eslint').Rule.RuleModule} */
const noCrossLayerImport = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { cross: 'src/{{from}} must not import from src/{{to}} ({{source}}).' },
  },
  create(context) {
    const from = layerOf(context.filename);
    const banned = FORBIDDEN_TARGETS[from];
    if (!banned) return {};
    // A test beside the engine may check it against the sandbox; only the engine's own code is layered.
    if (from === 'main/core' && /\.test\.tsx?$/.test(context.filename)) return {};
    const check = (node) => {
      const source = node?.value;
      if (typeof source !== 'string') return;
      if (!source.startsWith('.')) return;
      const to = layerOf(path.resolve(path.dirname(context.filename), source));
      if (banned.includes(to)) context.report({ node, messageId: 'cross', data: { from, to, source } });
    };
    return {
      ImportDeclaration: (n) => check(n.source),
      ExportNamedDeclaration: (n) => check(n.source),
      ExportAllDeclaration: (n) => check(n.source),
      ImportExpression: (n) => check(n.source),
    };
  },
};

// Parts composed by one file share a context and never import each other (nor does the context import a part):
// where two parts seem to need each other, the composer is missing a step. The account session
// (src/main/core/engine/session.ts) composes its parts; the Electron shell's entry (src/main/index.ts) the files
// beside it.
const PART_GROUPS = [
  {
    kind: 'Session part',
    composer: 'the session',
    dir: path.join(SRC, 'main', 'core', 'engine', 'session'),
    context: 'sessionContext',
    parts: ['liveItems', 'tradeSync', 'historyBackfill', 'walletSync', 'catalogScheduler'],
  },
  {
    kind: 'Shell part',
    composer: 'src/main/index.ts',
    dir: path.join(SRC, 'main'),
    context: 'shellContext',
    parts: [
      'window',
      'rendererRecovery',
      'tray',
      'notifications',
      'ipc',
      'quit',
      'security',
      'singleInstance',
      'autostart',
      'updates',
      'deepLinks',
    ],
  },
];
/** The group and the part (or the group's context) a file is, if any. */
const partOf = (file) => {
  const group = PART_GROUPS.find(({ dir }) => path.dirname(file) === dir);
  const name = path.basename(file).replace(/\.tsx?$/, '');
  return group && (group.parts.includes(name) || group.context === name) ? { group, part: name } : undefined;
};

/** @type {import('eslint').Rule.RuleModule} */
const noImportBetweenParts = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { part: '{{kind}} {{from}} must not import the part {{to}}: {{composer}} sequences them.' },
  },
  create(context) {
    const from = partOf(context.filename);
    if (!from) return {};
    const check = (node) => {
      const source = node?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = partOf(path.resolve(path.dirname(context.filename), source));
      if (to && to.group === from.group && to.part !== from.part && to.part !== to.group.context) {
        const { composer } = from.group;
        const kind = from.part === from.group.context ? 'The context' : from.group.kind;
        context.report({ node, messageId: 'part', data: { kind, from: from.part, to: to.part, composer } });
      }
    };
    return {
      ImportDeclaration: (n) => check(n.source),
      ExportNamedDeclaration: (n) => check(n.source),
      ExportAllDeclaration: (n) => check(n.source),
      ImportExpression: (n) => check(n.source),
    };
  },
};

// The engine's folders depend one way: engine/ composes alerts/, buy/ and notify/, which depend on small interfaces
// (a buying account, hooks of their own) and never on the engine: no import cycle between them.
const CORE_DIR = path.join(SRC, 'main', 'core');
const ENGINE_USERS = ['alerts', 'buy', 'notify'];
const coreFolderOf = (file) => path.relative(CORE_DIR, file).split(path.sep)[0];

/** @type {import('eslint').Rule.RuleModule} */
const noEngineImportFromParts = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      engine: 'src/main/core/{{from}} must not import the engine ({{source}}): depend on a small interface instead.',
    },
  },
  create(context) {
    const from = coreFolderOf(context.filename);
    if (!ENGINE_USERS.includes(from) || /\.test\.tsx?$/.test(context.filename)) return {};
    const check = (node) => {
      const source = node?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source);
      if (target.startsWith(CORE_DIR + path.sep) && coreFolderOf(target) === 'engine')
        context.report({ node, messageId: 'engine', data: { from, source } });
    };
    return {
      ImportDeclaration: (n) => check(n.source),
      ExportNamedDeclaration: (n) => check(n.source),
      ExportAllDeclaration: (n) => check(n.source),
      ImportExpression: (n) => check(n.source),
    };
  },
};

// Node-side code shares a tsconfig (lib DOM, for e2e/renderer tests) so guard browser globals here.
const BROWSER_GLOBALS = ['window', 'document', 'localStorage', 'sessionStorage'].map((name) => ({
  name,
  message: 'Browser global in Node-side code.',
}));

export default defineConfig(
  {
    ignores: [
      'out/',
      'dist/',
      'node_modules/',
      'bench/results/',
      'bench/.cache/',
      'test-results/',
      'playwright-report/',
      'coverage/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  tseslint.configs.strict,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: {
      layering: {
        rules: {
          'no-cross-layer-import': noCrossLayerImport,
          'no-import-between-parts': noImportBetweenParts,
          'no-engine-import-from-parts': noEngineImportFromParts,
        },
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['warn', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'layering/no-cross-layer-import': 'error',
      'layering/no-import-between-parts': 'error',
      'layering/no-engine-import-from-parts': 'error',
    },
  },
  {
    // A file over 600 formatted lines (blank lines and comments count) does more than one job: split it by concern.
    files: ['src/**/*.{ts,tsx,mts,cts,js,mjs}'],
    rules: { 'max-lines': ['error', { max: 600, skipBlankLines: false, skipComments: false }] },
  },
  {
    // A data table (the demo catalog's item names and prices), not logic: its length is its content.
    files: ['src/server/catalog/cs2Data.ts'],
    rules: { 'max-lines': 'off' },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    ...reactHooks.configs.flat.recommended,
  },
  {
    files: ['src/{main,preload,server,shared,web}/**/*.{ts,mts,cts}', 'bench/**/*.ts', 'scripts/**/*.{ts,mjs,js}'],
    rules: { 'no-restricted-globals': ['error', ...BROWSER_GLOBALS] },
  },
  {
    // Browser benchmarks run page.evaluate callbacks (window, document) inside Chromium.
    files: [
      'bench/scroll.ts',
      'bench/cold-start.ts',
      'bench/filter-sort.ts',
      'bench/busy-sync.ts',
      'bench/lib/bridgeProbe.ts',
      'bench/lib/bridgeTiming.ts',
      'bench/lib/exportProbe.ts',
      'bench/busy-queries.ts',
      'bench/failures-board.ts',
      'bench/operations.ts',
    ],
    rules: { 'no-restricted-globals': 'off' },
  },
  {
    // Benchmarks initialise results before try/finally blocks that may throw before assigning them.
    files: ['bench/**/*.ts'],
    rules: { 'no-useless-assignment': 'off' },
  },
  ...layers,
);
