// Rasterises the SVG marks in resources/ to the PNGs Electron and electron-builder need,
// with Playwright driving Debian's Chromium (no ImageMagick needed):
//   node resources/render-icons.mjs
// The PNGs are committed; run this only after changing an SVG.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';

const dir = fileURLToPath(new URL('.', import.meta.url));
const OUTPUTS = [
  { svg: 'icon.svg', png: 'icon.png', size: 512 },
  { svg: 'tray.svg', png: 'tray.png', size: 32 },
  { svg: 'trayTemplate.svg', png: 'trayTemplate.png', size: 16 },
  { svg: 'trayTemplate.svg', png: 'trayTemplate@2x.png', size: 32 },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  for (const { svg, png, size } of OUTPUTS) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    const markup = readFileSync(`${dir}${svg}`, 'utf8').replace(
      /width="\d+" height="\d+"/,
      `width="${size}" height="${size}"`,
    );
    await page.setContent(
      `<!doctype html><html><head><style>html,body{margin:0;padding:0;background:transparent}svg{display:block}</style></head><body>${markup}</body></html>`,
    );
    await page.screenshot({
      path: `${dir}${png}`,
      omitBackground: true,
      clip: { x: 0, y: 0, width: size, height: size },
    });
    await page.close();
    console.log(`${png} ${size}x${size}`);
  }
} finally {
  await browser.close();
}
