import type { Notification } from '../../../../shared/ipc/models';
import { dismissToast as dismiss, pushToasts, type ToastTone } from '../slices/notes';
import { update } from '../store';

let toastSeq = 0;

export function toast(tone: ToastTone, title: string, body = '', target: Notification['target'] = null): void {
  toastSeq += 1;
  const id = `local-${toastSeq}`;
  update('notes', (n) => pushToasts(n, [{ id, tone, title, body, target, at: new Date().toISOString() }]));
}

export function dismissToast(id: string): void {
  update('notes', (n) => dismiss(n, id));
}
