import { app } from 'electron';

/**
 * One Merchant Desk per data dir. A second launch does not start: it hands over to the first instance (whose
 * `second-instance` event runs `onSecondLaunch`) and leaves. A second launch's command line (a deep link, say)
 * arrives here too.
 * @returns whether this process holds the lock and should start.
 */
export function claimSingleInstance(onSecondLaunch: (argv: readonly string[]) => void): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', (_event, argv) => onSecondLaunch(argv));
  return true;
}
