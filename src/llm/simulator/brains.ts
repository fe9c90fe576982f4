/** The simulator's pluggable "model": a function from the parsed request to the reply text. */
import type { SimulatedCall } from './dialect.js';

/** What a brain sees: API, model, system prompt, conversation and output cap. */
export type SimulatorBrainRequest = SimulatedCall;

export type SimulatorBrain = (request: SimulatorBrainRequest) => string | Promise<string>;

/** How much of the last user turn the echo brain repeats. */
const ECHO_CHARS = 200;

/** Default brain: says which API and model answered and repeats the start of the last turn. */
export const echoBrain: SimulatorBrain = (request) => {
  const lastTurn = request.messages.at(-1)?.content ?? '';
  return `Simulated ${request.api} reply from ${request.model}. You said: ${lastTurn.slice(0, ECHO_CHARS)}`;
};

/**
 * Replies in order, one per request. Running out is a test bug, so it throws (the simulator then
 * answers with the API's internal-server error) instead of inventing a reply.
 */
export function scriptedBrain(replies: readonly string[]): SimulatorBrain {
  let next = 0;
  return () => {
    const reply = replies[next];
    if (reply === undefined) throw new Error(`scripted brain has no reply left (it had ${replies.length})`);
    next += 1;
    return reply;
  };
}
