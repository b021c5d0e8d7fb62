import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkInArgv, protocolRegistration, type LaunchEnvironment } from '../../src/main/shell/protocolClient';

const env = (patch: Partial<LaunchEnvironment>): LaunchEnvironment => ({
  platform: 'linux',
  defaultApp: false,
  appImage: undefined,
  execPath: '/opt/Merchant Desk/merchant-desk',
  argv: ['/opt/Merchant Desk/merchant-desk'],
  ...patch,
});

describe('protocolRegistration: where the app registers merchantdesk:// itself', () => {
  it('an AppImage registers itself (no installed .desktop file declares the scheme)', () => {
    expect(protocolRegistration(env({ appImage: '/home/u/Apps/Merchant-Desk.AppImage' }))).toEqual({});
  });

  it('a .deb (no $APPIMAGE) and a mac app leave it to the package (.desktop file, Info.plist)', () => {
    expect(protocolRegistration(env({}))).toBeNull();
    expect(protocolRegistration(env({ appImage: '' }))).toBeNull();
    expect(protocolRegistration(env({ platform: 'darwin', execPath: '/Applications/Merchant Desk.app' }))).toBeNull();
  });

  it('Windows registers itself; from source it names electron.exe and the app dir', () => {
    expect(protocolRegistration(env({ platform: 'win32', execPath: 'C:\\MD\\Merchant Desk.exe' }))).toEqual({});
    expect(
      protocolRegistration(
        env({
          platform: 'win32',
          defaultApp: true,
          execPath: 'C:\\e\\electron.exe',
          argv: ['C:\\e\\electron.exe', '.'],
        }),
      ),
    ).toEqual({ path: 'C:\\e\\electron.exe', args: [resolve('.')] });
  });

  it('from source elsewhere the dev binary is not made the handler', () => {
    expect(protocolRegistration(env({ defaultApp: true, argv: ['electron', '.'] }))).toBeNull();
    expect(protocolRegistration(env({ defaultApp: true, platform: 'darwin', argv: ['electron', '.'] }))).toBeNull();
    expect(protocolRegistration(env({ defaultApp: true, platform: 'win32', argv: ['electron.exe'] }))).toBeNull();
  });
});

describe('linkInArgv', () => {
  it('finds the link among the switches a launch carries, in any letter case of the scheme', () => {
    expect(linkInArgv(['/usr/bin/md', '--no-sandbox', 'merchantdesk://trade/abc'])).toBe('merchantdesk://trade/abc');
    expect(linkInArgv(['C:\\MD\\md.exe', 'MerchantDesk://item/7/'])).toBe('MerchantDesk://item/7/');
  });

  it('finds none in an ordinary launch, nor in a switch that only mentions the scheme', () => {
    expect(linkInArgv(['/usr/bin/md'])).toBeNull();
    expect(linkInArgv(['/usr/bin/md', '--hidden'])).toBeNull();
    expect(linkInArgv(['/usr/bin/md', '--url=merchantdesk://trade/abc'])).toBeNull();
    expect(linkInArgv(['/usr/bin/md', 'https://merchantdesk.example/trade/abc'])).toBeNull();
  });
});
