/**
 * The main window's options and its remembered bounds. No electron import: the
 * result is a plain object `new BrowserWindow(...)` accepts, checked by tests.
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What we remember of the window between runs (`userData/window-state.json`). */
export interface SavedWindowState {
  bounds: Rect;
  maximized: boolean;
}

/** A display as `screen.getAllDisplays()` reports it; only the work area matters. */
export interface DisplayArea {
  workArea: Rect;
}

export const DEFAULT_SIZE = { width: 1280, height: 800 } as const;
export const MIN_SIZE = { width: 960, height: 600 } as const;
/** The dark theme's `--bg`: no white flash before the renderer paints. */
export const BACKGROUND_COLOR = '#0d0f13';
/** How much of the window must lie on a display for it to count as visible (a grabbable title bar). */
export const MIN_VISIBLE = { width: 120, height: 48 } as const;

export interface MainWindowOptions {
  x?: number;
  y?: number;
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  title: string;
  show: false;
  backgroundColor: string;
  autoHideMenuBar: boolean;
  icon?: string;
  webPreferences: {
    preload: string;
    sandbox: true;
    contextIsolation: true;
    nodeIntegration: false;
    nodeIntegrationInWorker: false;
    nodeIntegrationInSubFrames: false;
    webSecurity: true;
    allowRunningInsecureContent: false;
    webviewTag: false;
    experimentalFeatures: false;
    navigateOnDragDrop: false;
    safeDialogs: true;
    spellcheck: false;
  };
}

/** `new BrowserWindow(mainWindowOptions(...))`: sandboxed, isolated, no Node in the page. */
export function mainWindowOptions(options: { preload: string; bounds: Rect | null; icon?: string }): MainWindowOptions {
  const bounds = options.bounds;
  return {
    ...(bounds ? { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height } : { ...DEFAULT_SIZE }),
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    title: 'Merchant Desk',
    show: false,
    backgroundColor: BACKGROUND_COLOR,
    autoHideMenuBar: true,
    ...(options.icon ? { icon: options.icon } : {}),
    webPreferences: {
      preload: options.preload,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
    },
  };
}

function isFiniteRect(value: unknown): value is Rect {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return ['x', 'y', 'width', 'height'].every((k) => typeof r[k] === 'number' && Number.isFinite(r[k]));
}

/** The saved state from its JSON, or null when it is missing or malformed. */
export function parseWindowState(value: unknown): SavedWindowState | null {
  if (typeof value !== 'object' || value === null) return null;
  const { bounds, maximized } = value as Record<string, unknown>;
  if (!isFiniteRect(bounds) || bounds.width <= 0 || bounds.height <= 0) return null;
  return {
    bounds: {
      x: Math.round(bounds.x),
      y: Math.round(bounds.y),
      width: Math.round(bounds.width),
      height: Math.round(bounds.height),
    },
    maximized: maximized === true,
  };
}

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return { width: Math.max(0, width), height: Math.max(0, height) };
}

function clampInto(bounds: Rect, area: Rect): Rect {
  const width = Math.min(Math.max(bounds.width, Math.min(MIN_SIZE.width, area.width)), area.width);
  const height = Math.min(Math.max(bounds.height, Math.min(MIN_SIZE.height, area.height)), area.height);
  const x = Math.min(Math.max(bounds.x, area.x), area.x + area.width - width);
  const y = Math.min(Math.max(bounds.y, area.y), area.y + area.height - height);
  return { x, y, width, height };
}

function centreIn(size: { width: number; height: number }, area: Rect): Rect {
  const width = Math.min(size.width, area.width);
  const height = Math.min(size.height, area.height);
  return {
    x: area.x + Math.floor((area.width - width) / 2),
    y: area.y + Math.floor((area.height - height) / 2),
    width,
    height,
  };
}

/**
 * Where to open the window: the saved bounds when enough of them lies on a
 * display (moved and shrunk to fit that display's work area), else centred on
 * the primary display (the first one) at the saved or default size. Null when
 * no display is known: let the OS place it.
 */
export function restoreBounds(saved: SavedWindowState | Rect | null, displays: readonly DisplayArea[]): Rect | null {
  const primary = displays[0]?.workArea;
  if (!primary) return null;
  const bounds = saved === null ? null : 'bounds' in saved ? saved.bounds : saved;
  if (!bounds || !isFiniteRect(bounds) || bounds.width <= 0 || bounds.height <= 0)
    return centreIn(DEFAULT_SIZE, primary);
  let best: { area: Rect; size: number } | null = null;
  for (const { workArea } of displays) {
    const o = overlap(bounds, workArea);
    if (o.width < Math.min(MIN_VISIBLE.width, bounds.width) || o.height < Math.min(MIN_VISIBLE.height, bounds.height))
      continue;
    const size = o.width * o.height;
    if (!best || size > best.size) best = { area: workArea, size };
  }
  if (best) return clampInto(bounds, best.area);
  return centreIn(
    { width: Math.max(bounds.width, MIN_SIZE.width), height: Math.max(bounds.height, MIN_SIZE.height) },
    primary,
  );
}
