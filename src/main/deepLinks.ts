import { app } from 'electron';
import { DEEP_LINK_SCHEME, describeLink, type DeepLinkTarget } from '../shared/deepLinks';
import { parseDeepLink } from '../shared/ipc/deepLinks';
import { linkInArgv, protocolRegistration } from './shell/protocolClient';
import type { ShellContext } from './shellContext';

export interface DeepLinkHooks {
  /** Go to the link's place (showing the window). Called at once, also before `ready` (the launch's own link). */
  open(target: DeepLinkTarget): void;
  /** Tell the user why a link was not opened (called once the app is ready). */
  refused(reason: string): void;
}

/**
 * `merchantdesk://` links: from the launch's command line, a second launch's (`fromArgv`, through the
 * single-instance lock) and macOS's `open-url`. Each is read whole in main (shared/ipc/deepLinks: a search's filters checked too); the log names its kind only.
 */
export class DeepLinks {
  constructor(
    private readonly ctx: ShellContext,
    private readonly hooks: DeepLinkHooks,
  ) {}

  /** Before `ready` (macOS sends `open-url` for the link that launched the app right away). */
  listen(): void {
    app.on('open-url', (event, url) => {
      event.preventDefault();
      this.handle(url);
    });
    const registration = protocolRegistration({
      platform: process.platform,
      defaultApp: process.defaultApp === true,
      appImage: process.env['APPIMAGE'],
      execPath: process.execPath,
      argv: process.argv,
    });
    if (registration) {
      const { path, args } = registration;
      const done = path
        ? app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME, path, args)
        : app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME);
      this.ctx.log(
        `${DEEP_LINK_SCHEME}:// links: ${done ? 'registered as their handler' : 'registering as their handler failed'}`,
      );
    }
    this.fromArgv(process.argv);
  }

  fromArgv(argv: readonly string[]): void {
    const link = linkInArgv(argv);
    if (link !== null) this.handle(link);
  }

  private handle(link: string): void {
    const result = parseDeepLink(link);
    this.ctx.log(
      `deep link ${result.ok ? 'opened' : 'refused'}: ${describeLink(link)}${result.ok ? '' : ` (${result.reason})`}`,
    );
    if (result.ok) this.hooks.open(result.target);
    else {
      const { reason } = result;
      void app.whenReady().then(() => this.hooks.refused(reason));
    }
  }
}
