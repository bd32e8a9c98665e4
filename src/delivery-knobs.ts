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

