// Operations → Failures and Recipients update live: with the screen open, trades that the sandbox's admin transition
// declines (504) or expires (503) change the board's counts and the recipient's row without a reload. The waits stay
// under the Recipients view's timed re-read (a minute) and the board has none: only the engine's live signals
// (`failuresChanged`, `recipientsChanged` on the trades' batch) can bring the new counts in time.
import { openApp } from './support/app';
import { buyFor, goToOperations } from './support/operations';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 100, seed: 36, merchant: { balance: 1_000_000 } });

test.describe.configure({ timeout: 180_000 });

const PARTNER = 6060;
const LIVE = { timeout: 15_000 };

test('the failures board and the recipients view show a declined or expired trade without a reload', async ({
  page,
}) => {
  await openApp(page, stack());
  await goToOperations(page);
  const failures = page.getByRole('region', { name: 'Failures', exact: true });
  const recipients = page.getByRole('region', { name: 'Recipients' });
  await expect(failures.getByText('No failures in this range')).toBeVisible({ timeout: 30_000 });
  await expect(recipients.getByText('No recipients yet')).toBeVisible();

  const [first, second, third] = (await buyFor(stack(), PARTNER, 4, 9_360_001, 1000, { send: true })) as [
    string,
    string,
    string,
  ];
  const row = recipients
    .getByRole('table', { name: 'Recipients' })
    .getByRole('row', { name: new RegExp(`${PARTNER}`) });
  await expect(row).toContainText('4 / 30', LIVE);

  const today = new Date().toISOString().slice(0, 10);
  const byDay = failures.getByRole('table', { name: /By day \(UTC\)/ });
  const cell = (count: number, reason: string, value: string) =>
    byDay.getByRole('button', { name: `${count} trades: ${reason}, ${today}, ${value}. Open the trades` });

  await stack().admin.transition(first, { status: 'CANCELLED', errorCode: 504 });
  await expect(cell(1, 'Declined (504)', '$10.00')).toBeVisible(LIVE);
  await expect(row).toContainText('1 / 10', LIVE);
  await expect(row).toContainText('3 / 30');

  // A second decline: the same cell's count moves (the open board reads again).
  await stack().admin.transition(second, { status: 'CANCELLED', errorCode: 504 });
  await expect(cell(2, 'Declined (504)', '$20.00')).toBeVisible(LIVE);
  await expect(row).toContainText('2 / 10', LIVE);
  await expect(row).toContainText('2 / 30');

  // An expiry: a new reason on the board, one more strike against the recipient.
  await stack().admin.transition(third, { status: 'EXPIRED', errorCode: 503 });
  await expect(cell(1, 'Expired (503)', '$10.00')).toBeVisible(LIVE);
  await expect(cell(2, 'Declined (504)', '$20.00')).toBeVisible();
  await expect(row).toContainText('3 / 10', LIVE);
  await expect(row).toContainText('1 / 30');
});
