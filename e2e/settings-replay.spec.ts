// Settings → Webhook replay when the engine answers late: the switch's save is held at the page's bridge socket (the
// real web host and engine behind it) until the merchant has typed a URL, so its answer lands after the typing. The
// typed URL must survive that answer and then save on its own.
import type { Page } from '@playwright/test';
import { goTo, openApp } from './support/app';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 100, seed: 41, merchant: { balance: 10_000 }, forwardToPrivateNetworks: true });

test.describe.configure({ timeout: 120_000 });

interface HeldAnswers {
  /** Resolves once a `settings.update` call was sent and its answer is being held. */
  held: Promise<void>;
  /** Passes the held answer on to the page. */
  release(): void;
}

/** Proxies the page's bridge socket and holds the answer to the next `settings.update` call until released. */
async function holdNextSettingsAnswer(page: Page): Promise<HeldAnswers> {
  let heldId: number | null = null;
  let heldFrame: string | null = null;
  let released = false;
  let toPage: ((frame: string) => void) | null = null;
  let onHeld = () => {};
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  await page.routeWebSocket(/\/bridge/, (socket) => {
    const server = socket.connectToServer();
    toPage = (frame) => socket.send(frame);
    socket.onMessage((message) => {
      const frame = JSON.parse(String(message)) as { type?: string; id?: number; method?: string };
      if (heldId === null && !released && frame.type === 'call' && frame.method === 'settings.update') {
        heldId = frame.id ?? null;
      }
      server.send(message);
    });
    server.onMessage((message) => {
      const frame = JSON.parse(String(message)) as { type?: string; id?: number };
      if (!released && frame.type === 'result' && frame.id === heldId) {
        heldFrame = String(message);
        onHeld();
        return;
      }
      socket.send(message);
    });
  });
  return {
    held,
    release() {
      released = true;
      if (heldFrame !== null) toPage?.(heldFrame);
    },
  };
}

test("a URL typed while the switch's save is answered is kept, and saves", async ({ page }) => {
  const answers = await holdNextSettingsAnswer(page);
  await openApp(page, stack());
  await goTo(page, 'Settings');
  const replay = page.getByRole('region', { name: 'Webhook replay' });
  const allow = replay.getByRole('checkbox', { name: 'Allow replaying missed webhooks' });
  // Its label changes once a URL is saved.
  const url = replay.locator('input[type="url"]');

  await allow.check();
  await answers.held;
  await url.fill('http://127.0.0.1:9/merchant/webhook');
  answers.release();

  await expect(page.getByText('Webhook replay is on')).toBeVisible();
  await expect(allow).toBeEnabled();
  await expect(allow).toBeChecked();
  await expect(url).toHaveValue('http://127.0.0.1:9/merchant/webhook');
  await replay.getByRole('button', { name: 'Save' }).click();
  await expect(replay.getByText(/Now: 127\.0\.0\.1:9 /)).toBeVisible();
  await expect(url).toHaveValue('');
});
