// Saved searches: the catalog's search, filters and sort saved under a name from the header, listed in the
// sidebar, kept across a reload (they live in the account's store), opened from the command palette, and
// turned into a watch (an alert rule) that carries every filter of it.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { WebSocket as NodeWebSocket } from 'ws';
import { catalogGrid, dataRows, expectFeedLive, openApp } from './support/app';
import { expect, test, useStack } from './support/stack';

const SPIRES = [
  { itemId: 3_100_001, assetId: '31000001', market_hash_name: 'Glock-18 | Savedspire (Field-Tested)', price: 500 },
  { itemId: 3_100_002, assetId: '31000002', market_hash_name: 'P250 | Savedspire (Minimal Wear)', price: 900 },
  { itemId: 3_100_003, assetId: '31000003', market_hash_name: 'USP-S | Savedspire (Factory New)', price: 4_500 },
];

const stack = useStack({
  items: 3000,
  seed: 23,
  merchant: { balance: 100_000 },
  async prepare({ admin }) {
    await admin.post('/admin/items', { items: SPIRES });
  },
});

test.describe.configure({ timeout: 90_000 });

const savedList = (page: Page) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('list', { name: 'Saved searches' });
const priceHeader = (page: Page) => catalogGrid(page).getByRole('columnheader', { name: 'Price' });

/** A second client of the web host's bridge (another page, in Node): calls one at a time. */
async function otherClient(): Promise<{
  call(method: string, input: unknown): Promise<{ ok: boolean; value?: unknown }>;
  close(): void;
}> {
  const { origin, token } = stack();
  const ws = new NodeWebSocket(
    `${origin.replace(/^http/, 'ws')}/bridge`,
    ['merchant-desk.bridge', `merchant-desk.token.${token}`],
    { origin },
  );
  const waiting = new Map<number, (envelope: { ok: boolean; value?: unknown }) => void>();
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        type: string;
        id?: number;
        envelope?: { ok: boolean; value?: unknown };
      };
      if (message.type === 'welcome') resolve();
      if (message.type === 'result' && message.id !== undefined && message.envelope)
        waiting.get(message.id)?.(message.envelope);
    });
    ws.on('close', (code) => reject(new Error(`bridge closed: ${code}`)));
    ws.on('error', reject);
  });
  let nextId = 1;
  return {
    call: (method, input) =>
      new Promise((resolve) => {
        const id = nextId++;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ type: 'call', id, method, input }));
      }),
    close: () => ws.close(),
  };
}

async function expectAxeClean(page: Page, include: string, where: string): Promise<void> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include(include)
    .analyze();
  expect
    .soft(
      result.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`)),
      `axe on ${where}`,
    )
    .toEqual([]);
}

test('a search saved from the catalog header is in the sidebar after a reload, opens from the palette with its filters and sort, and becomes a watch', async ({
  page,
}) => {
  await openApp(page, stack());
  await expectFeedLive(page);
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });

  // A search, a price range and a sort: the two Savedspires under $10, dearest first.
  await page.getByRole('searchbox', { name: 'Search items' }).fill('Savedspire');
  await page.getByRole('textbox', { name: 'Minimum price' }).fill('1');
  await page.getByRole('textbox', { name: 'Maximum price' }).fill('10');
  // Price is the default sort, ascending: one click turns it.
  await priceHeader(page).getByRole('button').click();
  await expect(priceHeader(page)).toHaveAttribute('aria-sort', 'descending');
  await expect(dataRows(page)).toHaveCount(2, { timeout: 15_000 });
  await expect(dataRows(page).first()).toContainText('P250 | Savedspire');

  // Save it: the header's button, a name, Enter.
  await page.getByRole('button', { name: 'Save search' }).click();
  const saveDialog = page.getByRole('dialog', { name: 'Save search' });
  await expect(saveDialog.getByLabel('Name')).toBeFocused();
  await expectAxeClean(page, 'dialog[open]', 'the save dialog');
  // An empty name is refused in words.
  await page.keyboard.press('Enter');
  await expect(saveDialog.getByRole('alert')).toHaveText('Name the search');
  await page.keyboard.type('Spire deals');
  await page.keyboard.press('Enter');
  await expect(saveDialog).toBeHidden();
  await expect(savedList(page).getByRole('button', { name: 'Spire deals', exact: true })).toBeVisible();

  // Saving again under the same name (any case) replaces that search, never makes a second one.
  await page.getByRole('button', { name: 'Save search' }).click();
  await page.keyboard.type('spire DEALS');
  await expect(saveDialog.getByRole('button', { name: 'Replace “Spire deals”' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(saveDialog).toBeHidden();

  // A reload starts from an empty catalog query; the saved search is still listed (the account's store keeps it).
  await page.reload();
  await expect(page.getByRole('searchbox', { name: 'Search items' })).toHaveValue('');
  await expect(savedList(page).getByRole('button', { name: 'Spire deals', exact: true })).toBeVisible({
    timeout: 15_000,
  });
  await expect(dataRows(page).first()).toBeVisible({ timeout: 30_000 });
  await expect(priceHeader(page)).toHaveAttribute('aria-sort', 'ascending');

  // Open it from the palette, keyboard only: the catalog shows the saved filters and sort.
  await page.getByRole('heading', { level: 1, name: 'Catalog' }).click();
  await page.keyboard.press('Control+k');
  await page.keyboard.type('Open saved search: Spire');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('searchbox', { name: 'Search items' })).toHaveValue('Savedspire');
  await expect(page.getByRole('textbox', { name: 'Minimum price' })).toHaveValue('1.00');
  await expect(page.getByRole('textbox', { name: 'Maximum price' })).toHaveValue('10.00');
  await expect(priceHeader(page)).toHaveAttribute('aria-sort', 'descending');
  await expect(dataRows(page)).toHaveCount(2, { timeout: 15_000 });
  await expect(dataRows(page).first()).toContainText('P250 | Savedspire');
  await expect(dataRows(page).nth(1)).toContainText('Glock-18 | Savedspire');

  // Watch it from the sidebar item's menu: the dialog says what the rule matches, every filter of the search.
  await savedList(page).getByRole('button', { name: 'Actions for saved search “Spire deals”' }).click();
  await savedList(page).getByRole('button', { name: 'Watch' }).click();
  const watchDialog = page.getByRole('dialog', { name: 'Watch “Spire deals”' });
  await expect(watchDialog).toContainText('The watch matches: “Savedspire” · price $1.00–$10.00.');
  await expect(watchDialog).toContainText('Every filter of this search carries over');
  await expectAxeClean(page, 'dialog[open]', 'the watch dialog');
  await watchDialog.getByRole('button', { name: 'Create watch' }).click();
  await expect(watchDialog).toBeHidden();
  await expect(page.getByRole('heading', { level: 1, name: 'Alerts' })).toBeVisible();
  const rule = page.getByRole('table', { name: 'Alert rules' }).locator('tbody tr', { hasText: 'Spire deals' });
  await expect(rule).toContainText('“Savedspire” · price $1.00–$10.00 · ≤ $10.00 each');
  // The rule is checked against the catalog at once: the two under $10 fire, the $45 one does not.
  const firings = page.getByRole('table', { name: 'Alert firings' }).locator('tbody tr');
  await expect(firings).toHaveCount(2, { timeout: 20_000 });
  await expect(firings.filter({ hasText: 'USP-S | Savedspire' })).toHaveCount(0);

  // Rename, then delete, from the same menu.
  await savedList(page).getByRole('button', { name: 'Actions for saved search “Spire deals”' }).click();
  await savedList(page).getByRole('button', { name: 'Rename' }).click();
  const renameDialog = page.getByRole('dialog', { name: 'Rename “Spire deals”' });
  await renameDialog.getByLabel('Name').fill('Cheap spires');
  await page.keyboard.press('Enter');
  await expect(renameDialog).toBeHidden();
  await expect(savedList(page).getByRole('button', { name: 'Cheap spires', exact: true })).toBeVisible();
  await expectAxeClean(page, 'nav', 'the sidebar with a saved search');
  await savedList(page).getByRole('button', { name: 'Actions for saved search “Cheap spires”' }).click();
  await savedList(page).getByRole('button', { name: 'Delete', exact: true }).click();
  await savedList(page).getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(savedList(page)).toBeHidden();
});

test('a change made in another window reaches the sidebar as that change alone, however many searches there are', async ({
  page,
}) => {
  const other = await otherClient();
  const ids = new Map<string, string>();
  for (let i = 0; i < 150; i++) {
    const name = `Bulk ${String(i).padStart(3, '0')}`;
    const answer = await other.call('searches.save', { name, query: { search: `bulk ${i}`, priceMax: 10_000 + i } });
    expect(answer.ok).toBe(true);
    ids.set(name, (answer.value as { id: string }).id);
  }
  // Every frame the page receives that tells of saved searches, by size.
  const frames: number[] = [];
  page.on('websocket', (socket) =>
    socket.on('framereceived', ({ payload }) => {
      const text = String(payload);
      if (text.includes('"savedSearches"')) frames.push(text.length);
    }),
  );
  await openApp(page, stack());
  await expect(savedList(page).getByRole('listitem')).toHaveCount(150, { timeout: 15_000 });

  // Saved here: in the list at once, and the frame that tells every page of it holds that search only.
  await page.getByRole('button', { name: 'Save search' }).click();
  await page.keyboard.type('Aardvark first');
  await page.keyboard.press('Enter');
  await expect(savedList(page).getByRole('listitem').first()).toContainText('Aardvark first');
  await expect.poll(() => frames.length).toBeGreaterThan(0);

  // Renamed and deleted by the other client: this page applies each change.
  expect(
    (await other.call('searches.save', { id: ids.get('Bulk 004'), name: 'Zebra last', query: { search: 'bulk 4' } }))
      .ok,
  ).toBe(true);
  expect((await other.call('searches.delete', { id: ids.get('Bulk 003') })).ok).toBe(true);
  await expect(savedList(page).getByRole('listitem').last()).toContainText('Zebra last');
  await expect(savedList(page).getByRole('button', { name: 'Bulk 003', exact: true })).toHaveCount(0);
  await expect(savedList(page).getByRole('button', { name: 'Bulk 004', exact: true })).toHaveCount(0);
  await expect(savedList(page).getByRole('listitem')).toHaveCount(150);
  expect(frames.length).toBeGreaterThanOrEqual(2);
  // The whole list of 150 would be tens of KB in each.
  for (const size of frames) expect(size).toBeLessThan(4_000);

  // The limit (200) is said in words in the save dialog, and nothing is stored past it.
  for (let i = 150; i < 200; i++)
    expect((await other.call('searches.save', { name: `Bulk ${i}`, query: { search: `bulk ${i}` } })).ok).toBe(true);
  await expect(savedList(page).getByRole('listitem')).toHaveCount(200);
  await page.getByRole('button', { name: 'Save search' }).click();
  const saveDialog = page.getByRole('dialog', { name: 'Save search' });
  await page.keyboard.type('One too many');
  await page.keyboard.press('Enter');
  await expect(saveDialog.getByRole('alert')).toHaveText(
    'At most 200 searches can be saved: delete one to save another.',
  );
  await page.keyboard.press('Escape');
  await expect(savedList(page).getByRole('listitem')).toHaveCount(200);

  const all = (await other.call('searches.list', {})).value as { id: string }[];
  for (const search of all) await other.call('searches.delete', { id: search.id });
  await expect(savedList(page)).toBeHidden();
  other.close();
});
