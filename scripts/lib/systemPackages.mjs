// What the test suites need from the system, how to tell whether it is here, and how to install it
// (Debian/Ubuntu apt-get, as root or with passwordless sudo). Plain functions of their inputs so the
// decision is tested without touching the machine.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Each need: a name for messages, how it is found, and the Debian packages that bring it. */
export const SYSTEM_NEEDS = [
  { name: 'Chromium (/usr/bin/chromium)', file: '/usr/bin/chromium', debian: ['chromium'] },
  { name: 'xvfb-run', command: 'xvfb-run', debian: ['xvfb', 'xauth'] },
  { name: 'gnome-keyring-daemon', command: 'gnome-keyring-daemon', debian: ['gnome-keyring'] },
  { name: 'dbus-run-session', command: 'dbus-run-session', debian: ['dbus'] },
];

/** Needed only while keytar still has to be built from source. */
export const LIBSECRET_NEED = {
  name: 'libsecret-1-dev',
  pkgConfig: 'libsecret-1',
  debian: ['libsecret-1-dev', 'pkg-config'],
};

const defaultProbe = {
  file: (path) => existsSync(path),
  command: (name) => spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0,
  pkgConfig: (name) => spawnSync('pkg-config', ['--exists', name], { stdio: 'ignore' }).status === 0,
};

/** The needs that are not met, in order. */
export function missingSystemPackages({ needs = SYSTEM_NEEDS, probe = defaultProbe } = {}) {
  return needs.filter((need) => {
    if (need.file) return !probe.file(need.file);
    if (need.command) return !probe.command(need.command);
    return !probe.pkgConfig(need.pkgConfig);
  });
}

/**
 * How apt-get can run here: as root directly, through passwordless sudo, or not at all
 * (then the user runs the printed command).
 */
export function planInstall({
  isRoot = process.getuid?.() === 0,
  hasAptGet = defaultProbe.command('apt-get'),
  sudoWorks = () => spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
} = {}) {
  if (!hasAptGet) return { kind: 'manual', prefix: isRoot ? [] : ['sudo'] };
  if (isRoot) return { kind: 'apt', prefix: [] };
  if (sudoWorks()) return { kind: 'apt', prefix: ['sudo', '-n'] };
  return { kind: 'manual', prefix: ['sudo'] };
}

/** Whether keytar (an optional dependency) is installed and built under `root`. */
export function keytarBuilt(root) {
  try {
    const dir = dirname(createRequire(join(root, 'package.json')).resolve('keytar/package.json'));
    return existsSync(join(dir, 'build', 'Release', 'keytar.node'));
  } catch {
    return false;
  }
}

/** Every Debian package `missing` needs, once each, in order. */
export function debianPackagesOf(missing) {
  return [...new Set(missing.flatMap((need) => need.debian))];
}

/** The one command that installs `missing` (what we run, or what we tell the user to run). */
export function installCommand(missing, prefix = []) {
  const packages = debianPackagesOf(missing);
  const sudo = prefix.length ? 'sudo ' : '';
  return `${sudo}apt-get update && ${sudo}apt-get install -y ${packages.join(' ')}`;
}
