// The knob `delivery` (issue 48; delivery.ts): kept apart so config.ts names it without importing the delivery.

/**
 * How the delivery handles parts and refusals: `fixed`, or a sabotage (tests only), each a real gateway's way:
 * `resend-whole`, a retry sends the reply from its first part (Hermes' `_send_with_retry` before `send_split`; OpenClaw
 * 2026.4.24's recovery replaying a queued entry whole); `skip-unacked`, a part whose answer did not come counts as
 * taken; `drop-not-ready`, a send refused because the listener is not ready is dropped and the row marked delivered
 * (nanoclaw's delivery: "No delivery adapter configured, dropping message", then markDelivered); `give-up-silently`, a
 * permanent refusal closes the row with no record of the give-up; `give-up-not-ready`, the listener's refusal counts as
 * permanent (OpenClaw before PR #126800: "outbound not configured for channel" among the permanent errors).
 */
export const deliveryModes = ['fixed', 'resend-whole', 'skip-unacked', 'drop-not-ready', 'give-up-silently', 'give-up-not-ready'] as const;
export type DeliveryMode = (typeof deliveryModes)[number];

/** The knob `delivery` (issue 48): the platform's message limit the gateway splits replies at, and the mode. */
export interface DeliveryKnobs {
  textLimit: number;
  mode: DeliveryMode;
}


/**
 * A scheduled task's output on two paths (issue 48 item 3; delivery.ts `deliverWithFallback`), as OpenClaw's cron
 * delivers an isolated job's output: the announce first, waited for `announceTimeoutMs` (the gateway call's client
 * timeout), and the direct send as its fallback when the announce did not report delivery. `fixed`: both paths send
 * under the row's key, so a fallback after an announce that landed is the platform's repeat of a key; the sabotages
 * (tests only), each a real gateway's way: `fresh-key`, the fallback is a send of its own (openclaw/openclaw#24041: a
 * client timeout on the announce, the queue fallback fired, two Telegram messages); `no-fallback`, an announce that
 * timed out counts as delivered (the fix proposed in openclaw/openclaw#24198), so an announce that never landed is lost.
 */
export const fallbackDeliveryModes = ['fixed', 'fresh-key', 'no-fallback'] as const;
export type FallbackDeliveryMode = (typeof fallbackDeliveryModes)[number];
