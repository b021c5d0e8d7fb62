// Sandboxed preload: bundled to one CommonJS file; only `electron` may stay external.
import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('merchantDesk', { version: 1 });
