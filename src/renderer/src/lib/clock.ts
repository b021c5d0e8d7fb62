import { useSyncExternalStore } from 'react';

/**
 * One shared wall clock for every "age" and countdown on screen. Renders read
 * the last tick (pure); one interval runs while anything listens.
 */
const listeners = new Set<() => void>();
let now = Date.now();
let timer: number | null = null;

function tick() {
  now = Date.now();
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (timer === null) {
    now = Date.now();
    timer = window.setInterval(tick, 1000);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== null) {
      window.clearInterval(timer);
      timer = null;
    }
  };
}

const getSnapshot = () => now;

/** Milliseconds since the epoch, updated every second. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}

/** Read the clock outside React (event handlers, reducers' callers). */
export function clockNow(): number {
  return Date.now();
}
