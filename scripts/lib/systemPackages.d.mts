export interface SystemNeed {
  name: string;
  file?: string;
  command?: string;
  pkgConfig?: string;
  debian: string[];
}
export interface Probe {
  file(path: string): boolean;
  command(name: string): boolean;
  pkgConfig(name: string): boolean;
}
export type InstallPlan = { kind: 'apt' | 'manual'; prefix: string[] };
export const SYSTEM_NEEDS: SystemNeed[];
export const LIBSECRET_NEED: SystemNeed;
export function missingSystemPackages(options?: { needs?: SystemNeed[]; probe?: Probe }): SystemNeed[];
export function planInstall(options?: {
  isRoot?: boolean;
  hasAptGet?: boolean;
  sudoWorks?: () => boolean;
}): InstallPlan;
export function installCommand(missing: SystemNeed[], prefix?: string[]): string;
export function keytarBuilt(root: string): boolean;
export function debianPackagesOf(missing: SystemNeed[]): string[];
