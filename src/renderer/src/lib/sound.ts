import type { AppSettings, Notification, NotificationCategory } from '../../../shared/ipc/models';
import { notificationCategory } from '../../../shared/notifications';

/**
 * Notification sounds: off by default, chosen per category, with one mute for
 * all. A batch plays each chosen category once, however many notifications it
 * carries (a burst of twelve deliveries is one chime). The player is
 * injectable so tests count what would play.
 */

export type SoundPlayer = (category: NotificationCategory) => void;
export type SoundSettings = Pick<AppSettings, 'soundCategories' | 'soundMuted'>;

/** The categories a batch sounds, in first-seen order; none when muted or none chosen (the default). */
export function soundsFor(
  list: readonly Notification[],
  settings: SoundSettings | null | undefined,
): NotificationCategory[] {
  const chosen = settings?.soundCategories ?? [];
  if (settings?.soundMuted === true || chosen.length === 0) return [];
  const out: NotificationCategory[] = [];
  for (const notification of list) {
    const category = notificationCategory(notification);
    if (chosen.includes(category) && !out.includes(category)) out.push(category);
  }
  return out;
}

/** Each category its own short pitch, so the ear tells a trade from an alert. */
const PITCH_HZ: Record<NotificationCategory, number> = { trade: 880, alert: 660, 'auto-buy': 990, connection: 440 };
const TONE_SECONDS = 0.18;

let context: AudioContext | null = null;

/** A short, quiet sine chime made with the Web Audio API (no bundled file). */
export const webAudioChime: SoundPlayer = (category) => {
  const AudioContextClass = typeof window === 'undefined' ? undefined : window.AudioContext;
  if (!AudioContextClass) return;
  try {
    context ??= new AudioContextClass();
    const now = context.currentTime;
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.type = 'sine';
    oscillator.frequency.value = PITCH_HZ[category];
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(0.15, now + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + TONE_SECONDS);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start(now);
    oscillator.stop(now + TONE_SECONDS);
  } catch {
    // A browser that refuses audio before a user gesture stays silent: sounds are a nicety.
  }
};

let player: SoundPlayer = webAudioChime;

/** Tests (and a future host) swap the player; returns the previous one. */
export function setSoundPlayer(next: SoundPlayer): SoundPlayer {
  const previous = player;
  player = next;
  return previous;
}

/** Plays the batch's sounds under these settings; returns the categories played. */
export function playNotificationSounds(
  list: readonly Notification[],
  settings: SoundSettings | null | undefined,
): NotificationCategory[] {
  const categories = soundsFor(list, settings);
  for (const category of categories) player(category);
  return categories;
}
