import type { QueueName } from './jobs.types';

/** Every queue declared by a loaded feature file, in declaration order. */
const declared = new Set<QueueName>();

/**
 * Declares that the application uses `name` (a key of JobMap) and returns it, typed as that key.
 * Call once at module scope, beside the queue's `declare module` entry:
 *
 *     export const MAIL_QUEUE = declareQueue('mail-send');
 *
 * A declared queue must have a handler once the application has bootstrapped: JobsService refuses
 * to start otherwise, naming the queues without one. Throws when `name` is declared twice.
 */
export function declareQueue<K extends QueueName>(name: K): K {
  if (declared.has(name)) throw new Error(`queue ${name} is declared twice`);
  declared.add(name);
  return name;
}

/** The queues declared so far (every feature file imported by the application). */
export function declaredQueues(): readonly QueueName[] {
  return [...declared];
}
