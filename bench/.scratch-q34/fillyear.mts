import { busyStoreCopy } from '../lib/busyStore';
const days = Number(process.argv[2]);
const t = performance.now();
await busyStoreCopy({ days, tradesPerDay: 10_000, recipients: 5_000, endMs: Date.parse('2026-11-29T00:00:00.000Z') }, `/tmp/q34/copy-${days}.sqlite`, console.log);
console.log('done', ((performance.now() - t) / 1000).toFixed(0), 's');
