import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: resolve(import.meta.dirname, '../..') });

async function ruleIds(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.severity === 2).map((m) => m.ruleId ?? 'fatal');
}

const ELECTRON = "import { app } from 'electron';\nexport default app;\n";
const NODE_FS = "import fs from 'node:fs';\nexport default fs;\n";

describe('layering lint rules', () => {
  it.each(['src/main/core/x.ts', 'src/shared/x.ts', 'src/server/x.ts', 'src/web/x.ts', 'src/renderer/x.tsx'])(
    'forbids electron in %s',
    async (file) => {
      expect(await ruleIds(ELECTRON, file)).toContain('no-restricted-imports');
    },
  );

  it.each(['src/renderer/x.tsx', 'src/shared/x.ts'])('forbids node builtins in %s', async (file) => {
    expect(await ruleIds(NODE_FS, file)).toContain('no-restricted-imports');
    expect(await ruleIds("import { readFile } from 'fs/promises';\nexport { readFile };\n", file)).toContain(
      'no-restricted-imports',
    );
  });

  it('allows electron in the shell and node builtins in the engine', async () => {
    expect(await ruleIds(ELECTRON, 'src/main/index.ts')).toEqual([]);
    expect(await ruleIds(ELECTRON, 'src/preload/index.ts')).toEqual([]);
    expect(await ruleIds(NODE_FS, 'src/main/core/x.ts')).toEqual([]);
  });

  it('forbids cross-layer relative imports, resolved by path', async () => {
    const code = (from: string) => `export * from '${from}';\n`;
    expect(await ruleIds(code('../../main/core/store'), 'src/renderer/src/x.ts')).toContain(
      'layering/no-cross-layer-import',
    );
    expect(await ruleIds(code('../server/x'), 'src/shared/x.ts')).toContain('layering/no-cross-layer-import');
    // src/renderer/src/main.tsx is not src/main.
    expect(await ruleIds(code('./main'), 'src/renderer/src/x.ts')).toEqual([]);
    expect(await ruleIds(code('../../shared/money'), 'src/renderer/src/x.ts')).toEqual([]);
  });

  it('keeps the engine (src/main/core) off the sandbox, the hosts and the shell: hosts hand it its account', async () => {
    const file = 'src/main/core/engine/x.ts';
    const dynamic = (from: string) => `export const load = () => import('${from}');\n`;
    expect(await ruleIds("export * from '../../../server/sandbox';\n", file)).toContain(
      'layering/no-cross-layer-import',
    );
    expect(await ruleIds(dynamic('../../../server/sandbox'), file)).toContain('layering/no-cross-layer-import');
    expect(await ruleIds("export * from '../../../web/options';\n", file)).toContain('layering/no-cross-layer-import');
    expect(await ruleIds("export * from '../../index';\n", file)).toContain('layering/no-cross-layer-import');
    // Within the engine, and down to shared, stays allowed; so does the shell's import of the engine.
    expect(await ruleIds("export * from '../store';\n", file)).toEqual([]);
    expect(await ruleIds("export * from '../../../shared/money';\n", file)).toEqual([]);
    expect(await ruleIds("export * from './core/engine/create';\n", 'src/main/x.ts')).toEqual([]);
    // Shared and the renderer still may not reach the engine.
    expect(await ruleIds("export * from '../main/core/store';\n", 'src/shared/x.ts')).toContain(
      'layering/no-cross-layer-import',
    );
  });

  it('keeps zod out of the renderer bundle: schema modules for types only, values from shared/api/values', async () => {
    const file = 'src/renderer/src/lib/x.ts';
    const value = (from: string) => `import { X } from '${from}';\nexport default X;\n`;
    for (const from of ['zod', '../../../shared/api', '../../../shared/api/enums', '../../../shared/ipc/contract']) {
      expect(await ruleIds(value(from), file), from).toContain('no-restricted-imports');
    }
    expect(await ruleIds("import type { Trade } from '../../../shared/api';\nexport type T = Trade;\n", file)).toEqual(
      [],
    );
    expect(await ruleIds(value('../../../shared/api/values'), file)).toEqual([]);
    // Main-side code keeps its schemas.
    expect(await ruleIds(value('../../../shared/api'), 'src/main/core/x/y.ts')).toEqual([]);
  });

  it('keeps the session parts from importing each other: the session sequences them', async () => {
    const part = 'src/main/core/engine/session/tradeSync.ts';
    expect(await ruleIds("export * from './walletSync';\n", part)).toContain('layering/no-import-between-parts');
    expect(await ruleIds("export * from './liveItems';\n", part)).toContain('layering/no-import-between-parts');
    // The shared context and helpers, and the composer's import of every part, stay allowed.
    expect(await ruleIds("export * from './sessionContext';\nexport * from '../../async';\n", part)).toEqual([]);
    expect(await ruleIds("export * from './session/tradeSync';\n", 'src/main/core/engine/session.ts')).toEqual([]);
  });

  it('keeps alerts, buy and notify off the engine: they depend on small interfaces', async () => {
    for (const folder of ['alerts', 'buy', 'notify']) {
      expect(await ruleIds("export * from '../engine/session';\n", `src/main/core/${folder}/x.ts`)).toContain(
        'layering/no-engine-import-from-parts',
      );
    }
    expect(await ruleIds("export * from '../buy/buyingAccount';\n", 'src/main/core/alerts/x.ts')).toEqual([]);
    // The async helpers sit beside the folders, not in the engine: alerts use them too.
    expect(await ruleIds("export * from '../async';\n", 'src/main/core/alerts/x.ts')).toEqual([]);
    expect(await ruleIds("export * from '../alerts/alertService';\n", 'src/main/core/engine/x.ts')).toEqual([]);
  });
});
