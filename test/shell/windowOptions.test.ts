import { describe, expect, it } from 'vitest';
import {
  BACKGROUND_COLOR,
  DEFAULT_SIZE,
  MIN_SIZE,
  mainWindowOptions,
  parseWindowState,
  restoreBounds,
  type DisplayArea,
} from '../../src/main/shell/windowOptions';

const FHD: DisplayArea = { workArea: { x: 0, y: 0, width: 1920, height: 1040 } };
const LEFT: DisplayArea = { workArea: { x: -1280, y: 0, width: 1280, height: 984 } };

describe('mainWindowOptions', () => {
  const options = mainWindowOptions({ preload: '/app/out/preload/index.cjs', bounds: null });

  it('sandboxes the page, isolates the preload and keeps Node out of it', () => {
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    });
  });

  it('opens hidden (shown at ready-to-show) on the dark theme background with a minimum size', () => {
    expect(options.show).toBe(false);
    expect(options.backgroundColor).toBe(BACKGROUND_COLOR);
    expect(BACKGROUND_COLOR).toBe('#0d0f13');
    expect(options).toMatchObject({ minWidth: MIN_SIZE.width, minHeight: MIN_SIZE.height, ...DEFAULT_SIZE });
    expect(options).not.toHaveProperty('x');
  });

  it('uses restored bounds when given', () => {
    const placed = mainWindowOptions({ preload: 'p', bounds: { x: 10, y: 20, width: 1000, height: 700 } });
    expect(placed).toMatchObject({ x: 10, y: 20, width: 1000, height: 700 });
  });
});

describe('restoreBounds', () => {
  it('centres the default size on the primary display when nothing was saved', () => {
    expect(restoreBounds(null, [FHD])).toEqual({ x: 320, y: 120, width: 1280, height: 800 });
  });

  it('lets the OS place the window when no display is known', () => {
    expect(restoreBounds({ x: 0, y: 0, width: 1000, height: 700 }, [])).toBeNull();
  });

  it('keeps bounds that are fully visible', () => {
    const bounds = { x: 100, y: 50, width: 1200, height: 800 };
    expect(restoreBounds({ bounds, maximized: false }, [FHD])).toEqual(bounds);
  });

  it('moves a window that hangs off the edge back inside the work area', () => {
    expect(restoreBounds({ x: 1500, y: 600, width: 1200, height: 800 }, [FHD])).toEqual({
      x: 720,
      y: 240,
      width: 1200,
      height: 800,
    });
  });

  it('shrinks a window larger than the display to its work area', () => {
    expect(restoreBounds({ x: -50, y: -50, width: 3000, height: 2000 }, [FHD])).toEqual({
      x: 0,
      y: 0,
      width: 1920,
      height: 1040,
    });
  });

  it('re-centres on the primary display a window left on a display that is gone', () => {
    expect(restoreBounds({ x: -1200, y: 100, width: 1100, height: 700 }, [FHD])).toEqual({
      x: 410,
      y: 170,
      width: 1100,
      height: 700,
    });
  });

  it('re-centres a window of which only a sliver is visible', () => {
    // 20 px on screen: no grabbable title bar.
    expect(restoreBounds({ x: 1900, y: 100, width: 1000, height: 700 }, [FHD])).toEqual({
      x: 460,
      y: 170,
      width: 1000,
      height: 700,
    });
  });

  it('keeps a window on a secondary display at negative coordinates', () => {
    const bounds = { x: -1200, y: 100, width: 1000, height: 700 };
    expect(restoreBounds(bounds, [FHD, LEFT])).toEqual(bounds);
  });

  it('picks the display holding most of a window that spans two', () => {
    // 280 px on the left display, 700 px on the primary one.
    expect(restoreBounds({ x: -280, y: 100, width: 980, height: 700 }, [FHD, LEFT])).toEqual({
      x: 0,
      y: 100,
      width: 980,
      height: 700,
    });
  });

  it('never restores below the minimum size when the display allows it', () => {
    expect(restoreBounds({ x: 100, y: 100, width: 300, height: 200 }, [FHD])).toEqual({
      x: 100,
      y: 100,
      width: MIN_SIZE.width,
      height: MIN_SIZE.height,
    });
  });

  it('treats garbage as nothing saved', () => {
    expect(restoreBounds({ x: Number.NaN, y: 0, width: 100, height: 100 }, [FHD])).toEqual({
      x: 320,
      y: 120,
      width: 1280,
      height: 800,
    });
    expect(restoreBounds({ x: 0, y: 0, width: 0, height: 100 }, [FHD])).toEqual({
      x: 320,
      y: 120,
      width: 1280,
      height: 800,
    });
  });
});

describe('parseWindowState', () => {
  it('accepts what we write and rounds fractional pixels', () => {
    expect(parseWindowState({ bounds: { x: 1.4, y: 2, width: 1000.6, height: 700 }, maximized: true })).toEqual({
      bounds: { x: 1, y: 2, width: 1001, height: 700 },
      maximized: true,
    });
  });

  it.each([
    null,
    'x',
    42,
    {},
    { bounds: null },
    { bounds: { x: 0, y: 0, width: '1', height: 1 } },
    { bounds: { x: 0, y: 0, width: -5, height: 1 } },
  ])('refuses %j', (value) => {
    expect(parseWindowState(value)).toBeNull();
  });
});
