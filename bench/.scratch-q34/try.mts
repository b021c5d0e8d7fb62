import { fillBusyStore } from "../lib/busyStore";
import { rmSync } from 'node:fs';
const n = Number(process.argv[2] ?? 140000);
const file = `/tmp/q34/busy-${n}.sqlite`;
for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true });
const t = performance.now();
const r = await fillBusyStore(file, { days: n / 10000, tradesPerDay: 10000, recipients: 5000, endMs: Date.parse('2026-11-29T00:00:00.000Z') }, console.log);
console.log(r, ((performance.now() - t) / 1000).toFixed(1), 's');
