/**
 * opencode's message events for the fake sessions of these tests: what opencode's bus hands
 * the `event` hook when it stores a message (`message.updated`) and each of its parts
 * (`message.part.updated`), so that the guard's mirror of a session (src/plugin/opencode-v1/mirror.ts)
 * follows the session as it does in opencode.
 */
import type { Hooks } from "@opencode-ai/plugin";
import type { Message } from "../support/session.js";

/** Sends the events of `messages` (in order: each message, then its parts) to every copy's `event` hook. */
export async function publish(copies: Hooks | readonly Hooks[], messages: readonly Message[]): Promise<void> {
  for (const hooks of Array.isArray(copies) ? copies : [copies]) {
    for (const message of messages) {
      await hooks.event?.({ event: { type: "message.updated", properties: { info: message.info } } as never });
      for (const part of message.parts) await hooks.event?.({ event: { type: "message.part.updated", properties: { part } } as never });
    }
  }
}
