import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { UpdateStatusView } from '../../src/renderer/src/app/UpdateStatusItem';
import type { UpdateStatus } from '../../src/shared/ipc/updates';

const render = (status: UpdateStatus | null, question: string | null = null) =>
  renderToStaticMarkup(createElement(UpdateStatusView, { status, question }));
/** The buttons' labels, in order (each a real <button>: Tab reaches it, Enter and Space press it). */
const buttons = (html: string) => [...html.matchAll(/<button type="button"[^>]*>([^<]*)<\/button>/g)].map((m) => m[1]);

describe('the status bar’s update item', () => {
  it('shows nothing without updates (the web host) or while idle', () => {
    expect(render(null)).toBe('');
    expect(render({ state: 'idle' })).toBe('');
  });

  it('follows the download with a progress bar, in percent and megabytes', () => {
    const html = render({
      state: 'downloading',
      version: '0.2.0',
      percent: 42,
      transferred: 33_600_000,
      total: 80_000_000,
    });
    expect(html).toContain('role="progressbar"');
    expect(html).toContain('aria-valuenow="42"');
    expect(html).toContain('aria-valuetext="42%, 33.6 MB of 80.0 MB"');
    expect(html).toContain('42% · 33.6 MB of 80.0 MB');
    expect(render({ state: 'checking' })).toContain('Checking for updates…');
    expect(render({ state: 'available', version: '0.2.0', notes: null })).toContain('Update 0.2.0 found, downloading…');
  });

  it('offers "Restart and install" when ready, and the notes', () => {
    const html = render({ state: 'ready', version: '0.2.0', notes: 'Faster catalog' });
    expect(html).toContain('Update 0.2.0 is ready');
    expect(buttons(html)).toEqual(['Restart and install', 'What’s new']);
    expect(buttons(render({ state: 'ready', version: '0.2.0', notes: null }))).toEqual(['Restart and install']);
  });

  it('asks first when auto-buy is armed: Install now or Cancel', () => {
    const html = render(
      { state: 'ready', version: '0.2.0', notes: null },
      '1 auto-buy rule is armed. Restarting stops auto-buy until Merchant Desk is back. Install version 0.2.0 now?',
    );
    expect(html).toContain('role="group" aria-label="Install the update?"');
    expect(html).toContain('1 auto-buy rule is armed.');
    expect(buttons(html)).toEqual(['Install now', 'Cancel']);
  });

  it('a .deb says the version and to update with the package manager, with the notes', () => {
    const html = render({
      state: 'manual',
      version: '0.2.0',
      notes: 'Faster catalog',
      reason: 'Installed from a .deb package: update with your package manager (apt).',
    });
    expect(html).toContain(
      'A new version 0.2.0 is available — Installed from a .deb package: update with your package manager (apt).',
    );
    expect(buttons(html)).toEqual(['What’s new']);
  });

  it('a failure is said plainly', () => {
    const html = render({
      state: 'error',
      message: 'The update server could not be reached; the next check tries again.',
    });
    expect(html).toContain('Update check failed');
    expect(html).toContain('The update server could not be reached; the next check tries again.');
    expect(buttons(html)).toEqual([]);
  });
});
