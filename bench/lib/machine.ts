import os from 'node:os';

export interface MachineInfo {
  cpu: string;
  cores: number;
  totalMemGiB: number;
  /** 1, 5 and 15 minute load averages when the benchmark started: how far to trust the figures on a shared machine. */
  loadavg: number[];
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    totalMemGiB: Number((os.totalmem() / 1024 ** 3).toFixed(1)),
    loadavg: os.loadavg().map((v) => Number(v.toFixed(2))),
  };
}
