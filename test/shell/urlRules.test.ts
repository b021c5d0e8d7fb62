import { describe, expect, it } from 'vitest';
import {
  isAllowedDownload,
  isAllowedExternalUrl,
  isAppNavigation,
  isInspectLink,
  navigationVerdict,
  windowOpenVerdict,
} from '../../src/main/shell/urlRules';

const INSPECT =
  'steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S76561198084749846A12345678901D1234567890123456789';

describe('isAllowedExternalUrl', () => {
  it.each([
    'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234',
    'https://example.com',
    'http://example.com/page?q=1#x',
    'https://cdn.example.net/items/1.png',
    INSPECT,
    INSPECT.replace('%20', ' '),
    'steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20M1234567890A12345678901D123456',
  ])('allows %s', (url) => {
    expect(isAllowedExternalUrl(url)).toBe(true);
  });

  it.each([
    ['file:', 'file:///etc/passwd'],
    ['javascript:', 'javascript:alert(1)'],
    ['mixed-case javascript:', 'JaVaScRiPt:alert(1)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['blob:', 'blob:https://example.com/uuid'],
    ['steam openurl', 'steam://openurl/https://evil.example'],
    [
      'steam run other game',
      'steam://rungame/570/76561202255233023/+csgo_econ_action_preview%20S76561198084749846A1D1',
    ],
    ['steam install', 'steam://install/730'],
    ['inspect link with a trailing command', `${INSPECT}+quit`],
    ['inspect link with a newline', `${INSPECT}\n+quit`],
    ['inspect link with extra args', INSPECT.replace('%20S', '%20-foo%20S')],
    ['upper-case steam scheme', INSPECT.replace('steam:', 'STEAM:')],
    ['ftp', 'ftp://example.com/file'],
    ['smb', 'smb://host/share'],
    ['ms-settings', 'ms-settings:privacy'],
    ['no host', 'https://'],
    ['no slashes', 'https:example.com'],
    ['credentials', 'https://user:pass@example.com'],
    ['leading space', ' https://example.com'],
    ['embedded tab', 'https://exa\tmple.com'],
    ['relative', '/tradeoffer/new'],
    ['malformed', 'http://[::1'],
    ['empty', ''],
    ['too long', `https://example.com/${'a'.repeat(3000)}`],
  ])('refuses %s', (_name, url) => {
    expect(isAllowedExternalUrl(url)).toBe(false);
  });

  it.each([undefined, null, 42, {}, ['https://example.com']])('refuses a non-string %j', (value) => {
    expect(isAllowedExternalUrl(value)).toBe(false);
  });

  it('matches the sandbox catalog inspect link format', () => {
    expect(isInspectLink(INSPECT)).toBe(true);
    expect(
      isInspectLink('steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S7656119808474984A1D1'),
    ).toBe(false);
  });
});

describe('isAppNavigation', () => {
  const file = 'file:///opt/Merchant%20Desk/resources/app.asar/out/renderer/index.html';

  it('allows the renderer document itself with any route', () => {
    expect(isAppNavigation(file, file)).toBe(true);
    expect(isAppNavigation(`${file}#/trades/t_1`, file)).toBe(true);
    expect(isAppNavigation('file:///opt/Merchant Desk/resources/app.asar/out/renderer/index.html', file)).toBe(true);
  });

  it('refuses other files, other schemes and anything remote', () => {
    expect(isAppNavigation('file:///opt/Merchant%20Desk/resources/app.asar/out/renderer/other.html', file)).toBe(false);
    expect(isAppNavigation('file:///etc/passwd', file)).toBe(false);
    expect(isAppNavigation('https://example.com/', file)).toBe(false);
    expect(isAppNavigation('about:blank', file)).toBe(false);
    expect(isAppNavigation(undefined, file)).toBe(false);
    expect(isAppNavigation('garbage', file)).toBe(false);
  });

  it('compares Windows drive paths case-insensitively', () => {
    expect(
      isAppNavigation('file:///c:/Program%20Files/MD/index.html', 'file:///C:/Program%20Files/MD/index.html'),
    ).toBe(true);
  });

  it('allows the dev server origin only', () => {
    const dev = 'http://localhost:5173';
    expect(isAppNavigation('http://localhost:5173/#/catalog', dev)).toBe(true);
    expect(isAppNavigation('http://localhost:5174/', dev)).toBe(false);
    expect(isAppNavigation('http://127.0.0.1:5173/', dev)).toBe(false);
  });
});

describe('navigation verdicts', () => {
  const app = 'file:///app/out/renderer/index.html';

  it('keeps app navigations, sends allowed links to the OS and drops the rest', () => {
    expect(navigationVerdict(`${app}#/wallet`, app)).toBe('allow');
    expect(navigationVerdict('https://steamcommunity.com/profiles/1', app)).toBe('open-external');
    expect(navigationVerdict(INSPECT, app)).toBe('open-external');
    expect(navigationVerdict('file:///etc/passwd', app)).toBe('deny');
    expect(navigationVerdict('javascript:alert(1)', app)).toBe('deny');
  });

  it('never opens a window: external or denied', () => {
    expect(windowOpenVerdict('https://example.com')).toBe('open-external');
    expect(windowOpenVerdict(app)).toBe('deny');
    expect(windowOpenVerdict('steam://openurl/https://x')).toBe('deny');
  });

  it('lets only the renderer-made Blob exports download', () => {
    expect(isAllowedDownload('blob:file:///8b1c')).toBe(true);
    expect(isAllowedDownload('https://example.com/x.exe')).toBe(false);
    expect(isAllowedDownload(undefined)).toBe(false);
  });
});
