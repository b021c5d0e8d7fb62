import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

const root = import.meta.dirname;

export default defineConfig({
  main: {
    build: {
      // package.json dependencies stay external (native: better-sqlite3, keytar; ws's optional native
      // helpers are not dependencies, so name them too), except zod, fastify and ws: bundled, they are a
      // few files to compile instead of hundreds of modules to resolve and load, which took ~40 % of the
      // web host's start on this machine (bench/cold-start.ts).
      externalizeDeps: { include: ['bufferutil', 'utf-8-validate'], exclude: ['zod', 'fastify', 'ws'] },
      rolldownOptions: {
        input: {
          index: resolve(root, 'src/main/index.ts'),
          // The local store's worker thread, loaded as out/main/storeWorker.js (see resolveWorkerEntry).
          storeWorker: resolve(root, 'src/main/core/store/worker/storeWorker.ts'),
          // The web host (`npm start` without Electron): plain Node, no electron import, loaded
          // without a TypeScript loader so it starts fast (see bench/cold-start.ts).
          web: resolve(root, 'src/web/cli.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // Sandboxed preloads cannot require npm packages or be ESM: bundle everything into
      // one CommonJS file (electron and node builtins stay external by default).
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(root, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src/renderer'),
    plugins: [react()],
    build: {
      // electron-vite leaves the renderer unminified; minified, the page parses ~3× less JavaScript at start.
      minify: true,
      rolldownOptions: { input: { index: resolve(root, 'src/renderer/index.html') } },
    },
  },
});
