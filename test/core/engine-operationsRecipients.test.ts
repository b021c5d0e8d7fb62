import { describe, expect, it } from 'vitest';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import type { Item } from '../../src/shared/api';
import type { RecipientSummary } from '../../src/shared/ipc';
import { useEngineOnSandbox } from '../support/engineOnSandbox';
import { bought, recipientBuys } from '../support/recipientBuys';
import { adminApi, at, tradeUrlFor } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('Operations → Recipients against the real sandbox', () => {
  const env = useEngineOnSandbox(
    'engine-ops-recipients-',
    { items: 50, seed: 35 },
    { balance: 5_000_000, reveal: { steamId: true } },
  );
  const { listings, buy } = recipientBuys(env, 93_000_000);

  const row = (partner: number) => env().app.call('operations.recipient', { partner: String(partner) });

  /** The recipient's row once the cache shows `until` of it. */
  function rowWhen(partner: number, until: (r: RecipientSummary) => boolean, what: string) {
    return waitFor(
      async () => {
        const now = await row(partner).catch(() => null);
        return now !== null && until(now) ? now : null;
      },
      10_000,
      what,
    );
  }

  it('counts declines and expiries against the sandbox block, records its expiresAt and warns before Review', async () => {
    const { sb, app } = env();
    const owner = 4242;
    await app.call('recipients.save', { label: 'Alice', tradeUrl: tradeUrlFor(owner) });
    const items = await listings(11, 100);
    const trades = [];
    for (const item of items.slice(0, 10)) trades.push(bought(await buy(item, owner)));
    expect(await rowWhen(owner, (r) => r.active === 10, '10 active offers')).toMatchObject({
      label: 'Alice',
      active: 10,
      activeCap: 30,
      strikes: 0,
      strikeLimit: 10,
      state: 'ok',
    });

    // 7 declines (504): a warning from 7, here and in the buy dialog's check.
    for (const trade of trades.slice(0, 7)) {
      await adminApi(sb).transition(trade.tradeId, { status: 'SENT' });
      await adminApi(sb).transition(trade.tradeId, { status: 'CANCELLED', errorCode: 504 });
    }
    const near = await rowWhen(owner, (r) => r.strikes === 7, '7 declines');
    expect(near).toMatchObject({ state: 'near', active: 3, cancelled: 7, blockedUntil: null });
    expect(near.last).toMatchObject({ status: 'CANCELLED', errorCode: 504 });
    const last = at(items, 10);
    const check = () =>
      app.call('buy.check', {
        itemId: last.itemId,
        assetId: last.assetId,
        price: last.price,
        recipient: { tradeUrl: tradeUrlFor(owner) },
      });
    expect((await check()).map((w) => w.code)).toContain('owner-near-block');
    const attention = await app.call('operations.recipients', { only: 'attention' });
    expect(attention.rows.map((r) => r.partner)).toEqual([String(owner)]);

    // 3 expiries (503) make 10: the sandbox's own rule blocks the owner; the refusal's expiresAt is recorded.
    for (const trade of trades.slice(7, 10)) {
      await adminApi(sb).transition(trade.tradeId, { status: 'SENT' });
      await adminApi(sb).transition(trade.tradeId, { status: 'EXPIRED', errorCode: 503 });
    }
    await rowWhen(owner, (r) => r.strikes === 10, '10 strikes');
    const seenBefore = app.batches.length;
    const refused = await buy(last, owner);
    if (refused.ok) throw new Error('expected partner_blocked');
    expect(refused.failure.code).toBe('partner_blocked');
    const blocked = await row(owner);
    expect(blocked).toMatchObject({
      state: 'blocked',
      blockedUntil: refused.failure.blockedUntil,
      strikes: 10,
      active: 0,
      cancelled: 10,
    });
    expect(Date.parse(blocked.blockedUntil ?? '')).toBeGreaterThan(Date.now());
    const warnings = await check();
    expect(warnings.find((w) => w.code === 'owner-blocked')?.message).toBe(
      `This recipient is blocked until ${refused.failure.blockedUntil} after repeated declined or expired offers: this buy would be refused.`,
    );
    // The view hears of it: a recipientsChanged signal after the refusal.
    await waitFor(
      () => app.batches.slice(seenBefore).some((b) => b.recipientsChanged === true),
      5_000,
      'a recipientsChanged event',
    );
    // Found by its label too, and filtered by number.
    expect((await app.call('operations.recipients', { search: 'ali' })).rows.map((r) => r.partner)).toEqual([
      String(owner),
    ]);
    expect((await app.call('operations.recipients', { search: '4242' })).total).toBe(1);
  }, 90_000);

  it('counts active offers against the 30 cap, and delivered, reversed and their value', async () => {
    const { sb, app } = env();
    const busy = 31_337;
    const items = await listings(32, 500);
    for (const item of items.slice(0, 30)) bought(await buy(item, busy));
    const capped = await rowWhen(busy, (r) => r.active === 30, '30 active offers');
    expect(capped.state).toBe('at-cap');
    const check = await app.call('buy.check', {
      itemId: at(items, 30).itemId,
      assetId: at(items, 30).assetId,
      price: at(items, 30).price,
      recipient: { tradeUrl: tradeUrlFor(busy) },
    });
    expect(check.find((w) => w.code === 'owner-near-limit')?.message).toBe(
      'This recipient already has 30 of 30 active offers from you: this buy would be refused until one ends.',
    );
    const refused = await buy(at(items, 30), busy);
    expect(refused.ok ? 'bought' : refused.failure.code).toBe('too_many_active_trades');

    // Two delivered, one of them reversed: the sandbox's own transitions.
    const other = 5151;
    const a = bought(await buy(at(items, 31), other));
    const second = (await listings(1, 900))[0] as Item;
    const c = bought(await buy(second, other));
    for (const trade of [a, c]) {
      await adminApi(sb).transition(trade.tradeId, { status: 'SENT' });
      await adminApi(sb).transition(trade.tradeId, { status: 'COMPLETED' });
    }
    await adminApi(sb).transition(c.tradeId, { status: 'REVERSED' });
    const settled = await rowWhen(other, (r) => r.reversed === 1, 'a reversal');
    expect(settled).toMatchObject({ trades: 2, active: 0, delivered: 1, reversed: 1, value: a.price, state: 'ok' });
    expect(settled.last).toMatchObject({ status: 'REVERSED' });

    const byValue = await app.call('operations.recipients', { sort: 'value', descending: true });
    expect(byValue.rows.map((r) => r.partner)).toEqual([String(other), String(busy)]);
    const byActive = await app.call('operations.recipients', { sort: 'active', descending: true, only: 'active' });
    expect(byActive).toMatchObject({ total: 1, rows: [{ partner: String(busy), active: 30 }] });
  }, 90_000);

  it('lists a recipient blocked for declines to another merchant although the cache holds no trade to them', async () => {
    const { sb, app } = env();
    const owner = 6262;
    // Ten offers of another merchant to the same trade URL owner, declined: the sandbox blocks the owner for every
    // merchant, so this desk's first buy for them is refused and makes no trade.
    const elsewhere = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    const items = await listings(11, 700);
    for (const item of items.slice(0, 10)) {
      const { tradeId } = sb.core.buying.buy(elsewhere.merchantId, {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        tradeUrl: tradeUrlFor(owner),
      });
      await adminApi(sb).transition(tradeId, { status: 'SENT' });
      await adminApi(sb).transition(tradeId, { status: 'CANCELLED', errorCode: 504 });
    }
    const refused = await buy(at(items, 10), owner);
    if (refused.ok) throw new Error('expected partner_blocked');
    expect(refused.failure.code).toBe('partner_blocked');
    const expected = {
      partner: String(owner),
      state: 'blocked',
      blockedUntil: refused.failure.blockedUntil,
      trades: 0,
      active: 0,
      strikes: 0,
      last: null,
    };
    for (const query of [{}, { only: 'attention' as const }, { search: String(owner) }]) {
      const page = await app.call('operations.recipients', query);
      expect(page, JSON.stringify(query)).toMatchObject({ total: 1, rows: [expected] });
    }
    expect(await app.call('operations.recipients', { only: 'active' })).toMatchObject({ total: 0, rows: [] });
    expect(await app.call('operations.recipients', { search: '999' })).toMatchObject({ total: 0, rows: [] });
  }, 60_000);

  it('refuses bad input with a clear error', async () => {
    const { app } = env();
    expect(await dispatchIpc(app.engine, 'operations.recipient', { partner: '777' })).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: 'No trade to recipient 777 is in the cache.' },
    });
    const badSort = await dispatchIpc(app.engine, 'operations.recipients', { sort: 'price' });
    expect(badSort).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(JSON.stringify(badSort)).toContain(
      'sort must be one of partner, trades, active, strikes, delivered, cancelled, reversed, value, lastAt',
    );
    const badFilter = await dispatchIpc(app.engine, 'operations.recipients', { only: 'blocked-ish' });
    expect(JSON.stringify(badFilter)).toContain('only must be all, active or attention');
    const badPartner = await dispatchIpc(app.engine, 'operations.recipient', { partner: 'abc' });
    expect(JSON.stringify(badPartner)).toContain('A recipient is the number after partner= in their trade URL');
    expect(await dispatchIpc(app.engine, 'operations.recipients', { search: 'x'.repeat(101) })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
  }, 30_000);
});
