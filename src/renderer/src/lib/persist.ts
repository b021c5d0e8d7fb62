/** Small UI preferences kept in localStorage (never secrets, never trade URLs). */
const PREFIX = 'merchant-desk:';

export function readPref(key: string): string | null {
  try {
    return window.localStorage.getItem(PREFIX + key);
  } catch {
    return null;
  }
}

export function writePref(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(PREFIX + key);
    else window.localStorage.setItem(PREFIX + key, value);
  } catch {
    // Storage may be unavailable (private mode); preferences are a convenience.
  }
}
