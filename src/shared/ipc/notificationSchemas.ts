import { z } from 'zod';
import { utcTimestampSchema } from '../time';
import { id, offset, pageLimit } from './schemaFields';

const notificationCategory = z.enum(['trade', 'alert', 'auto-buy', 'connection']);
const notificationSeverity = z.enum(['success', 'danger', 'warning', 'neutral']);

export const notificationQuerySchema = z.strictObject({
  categories: z.array(notificationCategory).max(4).default([]),
  severities: z.array(notificationSeverity).max(4).default([]),
  unreadOnly: z.boolean().default(false),
  offset,
  limit: pageLimit,
});
export type NotificationQuery = z.input<typeof notificationQuerySchema>;
export type ParsedNotificationQuery = z.output<typeof notificationQuerySchema>;

/** Some notifications by id, or every unread one raised at or before `through` (default: now). */
export const notificationMarkReadSchema = z.union([
  z.strictObject({ ids: z.array(id).min(1).max(1000) }),
  z.strictObject({ all: z.literal(true), through: utcTimestampSchema.optional() }),
]);
export type NotificationMarkRead = z.infer<typeof notificationMarkReadSchema>;
