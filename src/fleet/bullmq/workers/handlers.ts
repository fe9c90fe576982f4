/**
 * One handler per queue, typed by that queue's contract: a queue without a handler, or a handler
 * whose payload or result does not match its queue, is a compile error.
 */
import type { QUEUES, QueueContract, QueueName } from '../queues/index.js';
import { analyzeAreaJob } from './analyze-area.js';
import { coordinate } from './coordinator.js';
import { explore } from './explore.js';
import type { JobHandler } from './handler.js';
import { indexSchema } from './index-worker.js';
import { maintain } from './maintenance.js';
import { mine } from './mine.js';
import { writeRecommendations } from './recommend.js';
import { verify } from './verify.js';

type ContractOf<Name extends QueueName> = Extract<(typeof QUEUES)[number], { name: Name }>;
type HandlerFor<Name extends QueueName> =
  ContractOf<Name> extends QueueContract<Name, infer Payload, infer Result> ? JobHandler<Payload, Result> : never;

export const HANDLERS: { readonly [Name in QueueName]: HandlerFor<Name> } = {
  coordinator: coordinate,
  explore,
  index: indexSchema,
  mine,
  'analyze-area': analyzeAreaJob,
  verify,
  recommend: writeRecommendations,
  maintenance: maintain,
};

/** The handler of `name`, for a payload already parsed by that queue's schema. */
export function handlerFor(name: QueueName): JobHandler<unknown, unknown> {
  return HANDLERS[name] as JobHandler<unknown, unknown>;
}
