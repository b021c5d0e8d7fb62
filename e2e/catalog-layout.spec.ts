// The catalog beside the detail panel on a laptop and a desktop screen, measured in Chromium: no header covers
// another, the discount (what a deal hunter reads beside the detail) stays in view and clear of the panel, and the
// filter bar keeps to two lines, so the rows keep the height.
import type { Page } from '@playwright/test';
import { catalogGrid, dataRows, openApp, screenshot } from './support/app';
import { expect, test, useStack } from './support/stack';

const stack = useStack({ items: 2000, seed: 32 });

test.describe.configure({ timeout: 90_000 });

interface Box {
  name: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The visible text of each column header (a folded one shows none), and its cell. */
function headerBoxes(page: Page): Promise<{ text: Box; cell: Box }[]> {
  return catalogGrid(page)
    .getByRole('columnheader')
    .evaluateAll((cells) =>
      cells.flatMap((cell) => {
        const label = cell.querySelector('.sort-btn > span:first-child, .head-text');
        if (!label || getComputedStyle(label).visibility === 'hidden') return [];
        const text = label.getBoundingClientRect();
        const box = cell.getBoundingClientRect();
        if (text.width === 0) return [];
        const name = cell.getAttribute('aria-label') ?? '';
        return [
          {
            text: { name, left: text.left, right: text.right, top: text.top, bottom: text.bottom },
            cell: { name, left: box.left, right: box.right, top: box.top, bottom: box.bottom },
          },
        ];
      }),
    );
}

const overlap = (a: Box, b: Box) =>
  a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

/** How many lines the filter bar's controls take (controls whose tops lie within a few pixels share a line). */
async function filterLines(page: Page): Promise<number> {
  const tops = await page
    .getByRole('group', { name: 'Filters' })
    .locator('input, select, button')
    .evaluateAll((controls) =>
      controls
        .filter((c) => c.getClientRects().length > 0)
        .map((c) => Math.round(c.getBoundingClientRect().top + c.getBoundingClientRect().height / 2)),
    );
  const lines: number[] = [];
  for (const top of tops.sort((a, b) => a - b)) if (lines.every((line) => Math.abs(line - top) > 8)) lines.push(top);
  return lines.length;
}

for (const [width, height] of [
  [1440, 900],
  [1280, 720],
] as const) {
  test(`at ${width}×${height} with the detail open: headers apart, discount in view beside the panel, filters on two lines`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height });
    await openApp(page, stack());
    await expect(dataRows(page).first()).toBeVisible({ timeout: 60_000 });
    expect.soft(await filterLines(page), 'lines of the filter bar').toBeLessThanOrEqual(2);

    await dataRows(page).nth(1).click();
    const panel = page.getByRole('complementary', { name: 'Item detail' });
    await expect(panel).toBeVisible();
    await screenshot(page, test.info(), `catalog-detail-${width}`);

    // No header's text covers another's, and each stays inside its own column.
    const headers = await headerBoxes(page);
    expect(headers.map((h) => h.text.name)).toEqual(expect.arrayContaining(['Name', 'Price', 'Discount']));
    for (const [i, a] of headers.entries()) {
      expect.soft(a.text.left, `${a.text.name} inside its column`).toBeGreaterThanOrEqual(a.cell.left - 0.5);
      expect.soft(a.text.right, `${a.text.name} inside its column`).toBeLessThanOrEqual(a.cell.right + 0.5);
      for (const b of headers.slice(i + 1))
        expect.soft(overlap(a.text, b.text), `${a.text.name} over ${b.text.name}`).toBe(false);
    }

    // Every loaded row's discount is on screen, clear of the panel, and its value is not cut.
    const panelBox = await panel.boundingBox();
    if (!panelBox) throw new Error('no detail panel box');
    const rows = dataRows(page);
    for (let i = 0; i < 5; i++) {
      const cell = rows.nth(i).getByRole('gridcell').nth(9);
      await expect(cell).toBeInViewport();
      const box = await cell.boundingBox();
      if (!box) throw new Error('no discount cell box');
      expect(box.width).toBeGreaterThan(40);
      expect(box.x + box.width, 'the discount cell ends before the panel').toBeLessThanOrEqual(panelBox.x + 0.5);
      const value = await cell.locator('.discount, .muted').first().boundingBox();
      if (value) expect(value.x + value.width).toBeLessThanOrEqual(box.x + box.width + 0.5);
    }
  });
}
