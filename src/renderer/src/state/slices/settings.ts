import type { AppSettings, Recipient } from '../../../../shared/ipc/models';

export interface SettingsSlice {
  settings: AppSettings | null;
  recipients: Record<string, Recipient>;
  recipientOrder: string[];
  recipientsStatus: 'idle' | 'loading' | 'ready' | 'error';
}

export const initialSettings: SettingsSlice = {
  settings: null,
  recipients: {},
  recipientOrder: [],
  recipientsStatus: 'idle',
};

export function withRecipients(slice: SettingsSlice, list: Recipient[]): SettingsSlice {
  const recipients: Record<string, Recipient> = {};
  for (const r of list) recipients[r.id] = r;
  return { ...slice, recipients, recipientOrder: list.map((r) => r.id), recipientsStatus: 'ready' };
}
