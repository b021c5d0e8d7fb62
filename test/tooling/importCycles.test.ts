// The renderer's modules import one way: no circle of imports (type-only and dynamic imports count too). Actions that
// reach across areas live in homes of their own (state/actions/toast, navigation, dialogs, account), so an area's
// actions never need an action that needs them back.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../support/tempDirs';

const root = resolve(import.meta.dirname, '../..');
const temp = tempDirs();

const OPTIONS: ts.CompilerOptions = { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Each module of `dir` and the modules of `dir` it imports (relative specifiers resolved as the bundler does). */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(dir)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .filter(({ fileName }) => fileName.startsWith('.'))
      .map(({ fileName }) => ts.resolveModuleName(fileName, file, OPTIONS, ts.sys).resolvedModule?.resolvedFileName)
      .filter((target): target is string => target !== undefined && !relative(dir, target).startsWith('..'));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** One circle per import that closes one (depth-first), each written `a.ts → b.ts → a.ts` relative to `dir`. */
function importCycles(dir: string): string[] {
  const graph = importGraph(dir);
  const done = new Set<string>();
  const path: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string): void => {
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) cycles.push([...path.slice(at), next].map((f) => relative(dir, f)).join(' → '));
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) if (!done.has(file)) visit(file);
  return cycles;
}

describe('import cycles', () => {
  it('finds a circle of imports, type-only, re-exported and dynamic ones included', () => {
    const dir = temp('import-cycles-');
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    };
    write('actions/ui.ts', "import { openDetail } from './catalog';\nexport const go = () => openDetail();\n");
    write('actions/catalog.ts', "import { toast } from './ui';\nexport const openDetail = () => toast();\n");
    write('a.tsx', "import type { B } from './b';\nexport type A = B;\n");
    write('b.ts', "export * from './lib';\n");
    write('lib/index.ts', "export const load = () => import('../a');\n");
    expect(importCycles(dir).sort()).toEqual([
      'a.tsx → b.ts → lib/index.ts → a.tsx',
      'actions/catalog.ts → actions/ui.ts → actions/catalog.ts',
    ]);
  });

  it('none in the renderer (src/renderer)', () => {
    expect(importCycles(join(root, 'src/renderer'))).toEqual([]);
  });
});
