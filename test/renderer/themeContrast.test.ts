// The colour pairs the screens rely on keep WCAG AA contrast (4.5:1 for text) in both themes, read from
// the real theme.css. axe checks what is on screen in e2e; this also covers states a run may not show
// (an armed "Confirm delete", every surface under faint text).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const css = readFileSync(resolve(import.meta.dirname, '../../src/renderer/src/styles/theme.css'), 'utf8');

function themeVariables(theme: 'dark' | 'light'): Map<string, string> {
  const block = new RegExp(`:root\\[data-theme='${theme}'\\]\\s*\\{([^}]*)\\}`).exec(css)?.[1];
  if (!block) throw new Error(`theme.css has no ${theme} block`);
  return new Map([...block.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((m) => [m[1] as string, (m[2] as string).trim()]));
}

function luminance(hex: string): number {
  const match = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!match) throw new Error(`not a #rrggbb colour: ${hex}`);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt((match[1] as string).slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** An `rgba(r, g, b, a)` layer over a #rrggbb colour, as the browser paints it. */
function over(layer: string, below: string): string {
  const m = /^rgba\((\d+),\s*(\d+),\s*(\d+),\s*([\d.]+)\)$/.exec(layer);
  const b = /^#([0-9a-f]{6})$/i.exec(below);
  if (!m || !b) throw new Error(`cannot lay ${layer} over ${below}`);
  const alpha = Number(m[4]);
  const channel = (i: number) =>
    Math.round(Number(m[i + 1]) * alpha + parseInt((b[1] as string).slice(i * 2, i * 2 + 2), 16) * (1 - alpha));
  return `#${[0, 1, 2].map((i) => channel(i).toString(16).padStart(2, '0')).join('')}`;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

describe.each(['dark', 'light'] as const)('%s theme', (theme) => {
  const vars = themeVariables(theme);
  const colour = (name: string) => {
    const value = vars.get(name);
    if (!value) throw new Error(`${theme}: ${name} is not set`);
    return value;
  };

  it.each([
    ['--accent-fg', '--accent-solid', 'the primary button'],
    ['--accent-fg', '--accent-solid-hover', 'the primary button, hovered'],
    ['#ffffff', '--down-solid', 'a danger button (armed delete)'],
    ['--fg-muted', '--bg-1', 'muted text on a panel'],
    ['--fg-faint', '--bg', 'faint text on the page'],
    ['--fg-faint', '--bg-3', 'faint text on the darkest raised surface'],
  ])('%s on %s (%s) keeps 4.5:1', (fg, bg) => {
    const ratio = contrast(fg.startsWith('#') ? fg : colour(fg), colour(bg));
    expect(ratio).toBeGreaterThanOrEqual(4.5);
  });

  it('warning text on two layers of its soft tint (the DEMO tag on the demo switch) keeps 4.5:1', () => {
    const tinted = over(colour('--warn-soft'), over(colour('--warn-soft'), colour('--bg-1')));
    expect(contrast(colour('--warn'), tinted)).toBeGreaterThanOrEqual(4.5);
  });
});
