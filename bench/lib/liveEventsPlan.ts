/** The live-events generator's plan, shared by the bench (notes) and its child (lib/live-events-child.ts). */

/** Per event-loop turn of the generator. */
export const BATCH = { reprice: 2000, relist: 100, remove: 100 };
/** Events emitted but not yet delivered before the generator waits. */
export const WINDOW = 60_000;
