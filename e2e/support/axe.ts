// One axe check for the specs: WCAG 2.1 A/AA on the page (or a part of it), each violation named with its node and
// why, soft so one run lists every screen's findings.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect } from './stack';

export async function expectAxeClean(page: Page, where: string, include?: string): Promise<void> {
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
  if (include) builder = builder.include(include);
  const result = await builder.analyze();
  const found = result.violations.flatMap((v) =>
    v.nodes.map((node) => `${v.id}: ${node.target.join(' ')} — ${node.failureSummary?.replace(/\s+/g, ' ') ?? v.help}`),
  );
  expect.soft(found, `axe on ${where}`).toEqual([]);
}
