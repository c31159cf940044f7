/**
 * The job queue's public shapes (src/jobs). Features depend on these, never on pg-boss: the
 * queue library can change behind JobsService without touching a feature.
 */

/**
 * Queue name -> payload type of every queue. Empty here: each feature adds its own queues in its
 * own file by declaration merging, so this module never imports a feature:
 *
 *     declare module '../jobs/jobs.types' {
 *       interface JobMap { 'mail-send': RenderedMail }
 *     }
 *
 * JobsService takes only these names, each with its own payload: a wrong name or payload is a
 * compile error. A payload is a JSON object (a scheduled pass with nothing to say takes `NoData`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface JobMap {}

/** A queue's name. */
export type QueueName = keyof JobMap;

/** The payload of a job that carries nothing (scheduled passes): `{}`. */
export type NoData = Record<string, never>;

/** One job handed to a handler. */
export interface QueuedJob<T> {
  id: string;
  /** The queue's name. */
  queue: string;
  data: T;
  /** 0 on the first attempt; n on the n-th retry (after a failure or a worker that died). */
  retryCount: number;
  /** Aborted when the job's claim lapses (expired, or the instance stops). */
  signal: AbortSignal;
}

/**
 * Handles one job. Resolving completes it; throwing fails this attempt, which is retried per the
 * queue's options and kept in the history (failed) once retries are spent.
 */
export type JobHandler<T> = (job: QueuedJob<T>) => Promise<void>;

/** Per-queue behaviour, fixed when the handler is registered. */
export interface QueueSettings {
  /** Retries after the first attempt (default 2). */
  retryLimit?: number;
  /** Seconds before the first retry (default 1); doubles with each retry when `retryBackoff`. */
  retryDelaySeconds?: number;
  /** Exponential backoff with jitter (default true). */
  retryBackoff?: boolean;
  /** Longest an attempt may stay active before it is retried (seconds, default 900). */
  expireInSeconds?: number;
  /**
   * A running attempt proves it is alive this often; one silent longer (its instance died) is
   * retried by another instance. At least 10; unset: only `expireInSeconds` applies.
   */
  heartbeatSeconds?: number;
  /** Jobs this instance runs at once (default 1). */
  concurrency?: number;
  /** Completed and failed jobs stay in the history this long (seconds, default 7 days). */
  keepSeconds?: number;
  /**
   * At most one queued or active job per `singletonKey` (every job of the queue must then carry
   * one): a second enqueue with a key already waiting or running returns null.
   */
  unique?: boolean;
  /**
   * At most one job of the queue runs at a time across instances, and at most one more waits
   * (an enqueue beyond that returns null): for periodic passes such as sweeps and ticks, where
   * two at once would only contend and a burst of triggers means one more pass. Not with `unique`.
   */
  singleton?: boolean;
}

/** Options of one enqueued job. */
export interface EnqueueOptions {
  /** At most one queued or active job with this key per queue; a second enqueue returns null. */
  singletonKey?: string;
  /** Not before this time. */
  startAfter?: Date;
  /** Overrides the queue's retry count for this job. */
  retryLimit?: number;
}
