import { defineConfig } from '@playwright/test';

const ci = Boolean(process.env['CI']);

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  workers: 1,
  // A flaky test is a bug to fix, not to retry: CI reports the first failure.
  retries: 0,
  forbidOnly: ci,
  reporter: 'list',
  use: {
    headless: true,
    screenshot: 'only-on-failure',
    // The app honours it: no transition or animation is caught half-way by a contrast check or a screenshot.
    reducedMotion: 'reduce',
    // Debian's Chromium: Playwright's own browser download is not reachable here.
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    },
  },
});
