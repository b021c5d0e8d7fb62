import Database from 'better-sqlite3';
import { RecordsReader } from '/work/wt/q34/src/main/core/store/worker/recordsReader';
const file = process.argv[2]!;
const db = new Database(file, { readonly: true });
db.pragma('cache_size = -32768');
const r = new RecordsReader(db);
const time = (label: string, fn: () => unknown) => {
  fn();
  const t: number[] = [];
  let out: any;
  for (let i = 0; i < 5; i++) { const s = performance.now(); out = fn(); t.push(performance.now() - s); }
  t.sort((a, b) => a - b);
  console.log(label.padEnd(40), t[2]!.toFixed(2), 'ms', out && 'total' in out ? out.total : Array.isArray(out) ? out.length : '');
};
const total = r.queryTrades({ limit: 1 }).total;
for (const [name, q] of Object.entries({
  none: {}, completed: { statuses: ['COMPLETED'] }, reversed: { statuses: ['REVERSED'] }, two: { statuses: ['EXPIRED', 'REJECTED'] },
  active: { activeOnly: true }, dates: { from: '2026-11-20T05:30:00.000Z', to: '2026-11-25T17:00:00.000Z' },
  ext: { externalId: 'wd_' }, ext2: { externalId: 'WD_2' }, tid1: { tradeId: 'a' }, tid4: { tradeId: 'ab12' }, partner: { partner: '100042' }, webhook: { webhookFailed: true },
  webhookDates: { webhookFailed: true, from: '2026-11-20T05:30:00.000Z' },
})) {
  const t = r.queryTrades({ ...q, limit: 1 }).total;
  for (const [pos, off] of [['first', 0], ['mid', Math.floor(t / 2)], ['last', Math.max(0, t - 50)]] as const)
    time(`trades ${name} ${pos}`, () => r.queryTrades({ ...q, offset: off, limit: 50 }));
}
for (const [name, q] of Object.entries({ none: {}, freeze: { types: ['FREEZE'] }, rollback: { types: ['TRADE ROLLBACK'] }, tid: { tradeId: 'ab1' }, dates: { from: '2026-11-20T05:30:00.000Z', to: '2026-11-25T17:00:00.000Z' } })) {
  const t = r.queryLedger({ ...q, limit: 1 }).total;
  for (const [pos, off] of [['first', 0], ['mid', Math.floor(t / 2)], ['last', Math.max(0, t - 50)]] as const)
    time(`ledger ${name} ${pos}`, () => r.queryLedger({ ...q, offset: off, limit: 50 }));
  time(`series ${name}`, () => r.balanceSeries(q));
}
