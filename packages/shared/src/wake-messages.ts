/** The wake-up messages of claims on the one pub/sub channel (published by ./ready-jobs.ts, read by ./wake-listener.ts). */

/**
 * Why a claim may now succeed: `offer` — a job became claimable; `slot` — room appeared (a slot
 * freed, a limit raised, a pause ended).
 */
export type WakeReason = "offer" | "slot";

const SLOT_WAKE_PREFIX = "slot:";

/** The pub/sub message for a wake-up; an offer is the bare automation id. */
export function wakeMessage(reason: WakeReason, automationId: string): string {
  switch (reason) {
    case "offer":
      return automationId;
    case "slot":
      return SLOT_WAKE_PREFIX + automationId;
    default: {
      const exhaustive: never = reason;
      throw new Error(`unknown wake reason ${String(exhaustive)}`);
    }
  }
}

/** Reads a wake-up message: which automation, and why. */
export function parseWakeMessage(message: string): { automationId: string; reason: WakeReason } {
  return message.startsWith(SLOT_WAKE_PREFIX)
    ? { automationId: message.slice(SLOT_WAKE_PREFIX.length), reason: "slot" }
    : { automationId: message, reason: "offer" };
}
