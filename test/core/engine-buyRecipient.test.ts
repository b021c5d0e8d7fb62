// buy.recipient: the buy dialogs' recipient standing before Review (active offers against the 30 cap, declines and
// expiries against the 10 that block, a block's end), from the cache, against the sandbox's own partner rules.
import { describe, expect, it } from 'vitest';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import type { Item } from '../../src/shared/api';
import type { RecipientStanding } from '../../src/shared/ipc';
import { useEngineOnSandbox } from '../support/engineOnSandbox';
import { bought, recipientBuys } from '../support/recipientBuys';
import { adminApi, at, tradeUrlFor } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('buy.recipient against the real sandbox', () => {
  const env = useEngineOnSandbox(
    'engine-buy-recipient-',
    { items: 50, seed: 36 },
    { balance: 5_000_000, reveal: { steamId: true } },
  );
  const { listings, buy } = recipientBuys(env, 94_000_000);

  const standing = (partner: number) =>
    env().app.call('buy.recipient', { recipient: { tradeUrl: tradeUrlFor(partner) } });

  /** The standing once the cache shows `until` of it. */
  function standingWhen(partner: number, until: (s: RecipientStanding) => boolean, what: string) {
    return waitFor(
      async () => {
        const now = await standing(partner);
        return until(now) ? now : null;
      },
      10_000,
      what,
    );
  }

  it('a new recipient has a clean standing; at the 30 cap it says the buy would be refused, saved or pasted, offline too', async () => {
    const { sb, app } = env();
    const busy = 31_337;
    const saved = await app.call('recipients.save', { label: 'Busy Bob', tradeUrl: tradeUrlFor(busy) });
    expect(await app.call('buy.recipient', { recipient: { recipientId: saved.id } })).toEqual({
      partner: String(busy),
      label: 'Busy Bob',
      active: 0,
      activeCap: 30,
      strikes: 0,
      strikeLimit: 10,
      state: 'ok',
      blockedUntil: null,
      warnings: [],
      refusal: null,
    });

    const items = await listings(31, 500);
    for (const item of items.slice(0, 27)) bought(await buy(item, busy));
    const near = await standingWhen(busy, (s) => s.active === 27, '27 active offers');
    expect(near).toMatchObject({ state: 'near', refusal: null });
    expect(near.warnings).toEqual([
      { code: 'owner-near-limit', message: 'This recipient already has 27 of 30 active offers from you.' },
    ]);

    for (const item of items.slice(27, 30)) bought(await buy(item, busy));
    const capped = await standingWhen(busy, (s) => s.active === 30, '30 active offers');
    expect(capped).toMatchObject({ label: 'Busy Bob', state: 'at-cap', refusal: 'too_many_active_trades' });
    expect(capped.warnings).toEqual([
      {
        code: 'owner-near-limit',
        message:
          'This recipient already has 30 of 30 active offers from you: this buy would be refused until one ends.',
      },
    ]);
    // The saved recipient reads the same.
    expect(await app.call('buy.recipient', { recipient: { recipientId: saved.id } })).toEqual(capped);
    // And the marketplace does refuse it.
    const refused = await buy(at(items, 30), busy);
    expect(refused.ok ? 'bought' : refused.failure.code).toBe('too_many_active_trades');

    // Offline: the marketplace gone, the standing still comes from the cache.
    await sb.close();
    expect(await standing(busy)).toEqual(capped);
  }, 90_000);

  it('near a block from 7 declines or expiries, most likely refused at 10, then blocked until the answer’s expiresAt', async () => {
    const { sb } = env();
    const owner = 4242;
    const items = await listings(11, 100);
    const trades = [];
    for (const item of items.slice(0, 10)) trades.push(bought(await buy(item, owner)));
    await standingWhen(owner, (s) => s.active === 10, '10 active offers');

    for (const trade of trades.slice(0, 7)) {
      await adminApi(sb).transition(trade.tradeId, { status: 'SENT' });
      await adminApi(sb).transition(trade.tradeId, { status: 'CANCELLED', errorCode: 504 });
    }
    const near = await standingWhen(owner, (s) => s.strikes === 7, '7 declines');
    expect(near).toMatchObject({ active: 3, state: 'near', blockedUntil: null, refusal: null });
    expect(near.warnings).toEqual([
      {
        code: 'owner-near-block',
        message:
          '7 of your offers to this recipient were declined or expired in 24 h; at 10 the marketplace blocks them.',
      },
    ]);

    // 10 strikes: the spec's rule blocks the owner; the desk has no block answer yet, and says so.
    for (const trade of trades.slice(7, 10)) {
      await adminApi(sb).transition(trade.tradeId, { status: 'SENT' });
      await adminApi(sb).transition(trade.tradeId, { status: 'EXPIRED', errorCode: 503 });
    }
    const ten = await standingWhen(owner, (s) => s.strikes === 10, '10 strikes');
    expect(ten).toMatchObject({ active: 0, blockedUntil: null, refusal: 'partner_blocked' });
    expect(ten.warnings).toEqual([
      {
        code: 'owner-near-block',
        message:
          '10 of your offers to this recipient were declined or expired in 24 h: the marketplace blocks a recipient at 10, so this buy would most likely be refused.',
      },
    ]);

    const refused = await buy(at(items, 10), owner);
    if (refused.ok) throw new Error('expected partner_blocked');
    expect(refused.failure.code).toBe('partner_blocked');
    const blocked = await standingWhen(owner, (s) => s.blockedUntil !== null, 'the recorded block');
    expect(blocked).toMatchObject({
      state: 'blocked',
      blockedUntil: refused.failure.blockedUntil,
      refusal: 'partner_blocked',
    });
    expect(blocked.warnings).toEqual([
      {
        code: 'owner-blocked',
        message: `This recipient is blocked until ${refused.failure.blockedUntil} after repeated declined or expired offers: this buy would be refused.`,
      },
    ]);
  }, 90_000);

  it('refuses bad input with a clear error and changes nothing', async () => {
    const { app } = env();
    const owner = 5151;
    await app.call('recipients.save', { label: 'Carol', tradeUrl: tradeUrlFor(owner) });
    bought(await buy((await listings(1, 900))[0] as Item, owner));
    await standingWhen(owner, (s) => s.active === 1, 'one active offer');
    const recipientsBefore = await app.call('recipients.list', {});
    const rowsBefore = await app.call('operations.recipients', {});

    for (const tradeUrl of [
      'https://steamcommunity.com/tradeoffer/new/?partner=abc&token=AbCd1234',
      'https://example.com/tradeoffer/new/?partner=5151&token=AbCd1234',
      'https://steamcommunity.com/tradeoffer/new/?partner=0&token=AbCd1234',
      '',
    ]) {
      expect(await dispatchIpc(app.engine, 'buy.recipient', { recipient: { tradeUrl } })).toEqual({
        ok: false,
        error: {
          code: 'invalid_input',
          message: 'Not a trade offer URL: https://steamcommunity.com/tradeoffer/new/?partner=…&token=…',
        },
      });
    }
    expect(await dispatchIpc(app.engine, 'buy.recipient', { recipient: { recipientId: 'no-such-id' } })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'No saved recipient no-such-id' },
    });
    // Refused by the schema before the engine: too long, both kinds at once, no recipient, an unknown key.
    for (const input of [
      { recipient: { tradeUrl: `${tradeUrlFor(owner)}${'x'.repeat(600)}` } },
      { recipient: { tradeUrl: tradeUrlFor(owner), recipientId: 'x' } },
      {},
      { recipient: { tradeUrl: tradeUrlFor(owner) }, itemId: 1 },
    ]) {
      expect(await dispatchIpc(app.engine, 'buy.recipient', input)).toMatchObject({
        ok: false,
        error: { code: 'invalid_input', message: expect.stringMatching(/^buy\.recipient: /) as unknown as string },
      });
    }

    expect(await app.call('recipients.list', {})).toEqual(recipientsBefore);
    expect({ ...(await app.call('operations.recipients', {})), computedAt: '' }).toEqual({
      ...rowsBefore,
      computedAt: '',
    });
    expect((await standing(owner)).active).toBe(1);
  }, 60_000);
});
