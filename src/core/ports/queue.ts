/**
 * The Queue port: job ids handed to workers. enqueue after close rejects; process may be called
 * once; close may be called repeatedly; size counts waiting ids, not running ones.
 */
export interface EnqueueOptions {
  /** Higher runs first. Default 0. */
  priority?: number;
  /**
   * True when the job was just created and its id never enqueued before: a queue may then skip
   * whatever it does to tell a repeat of a waiting or running id (the BullMQ queue saves a Redis
   * round trip per new job). Default false.
   */
  firstTime?: boolean;
}

/** What a queue knows about one delivery of an id. */
export interface QueueDelivery {
  /**
   * True when this very entry was handed out before and its handler did not finish (its worker
   * died, or the handler threw); false for a first delivery, including a second entry of an id
   * enqueued again. A durable queue passes it; the engine takes a `processing` job over from
   * another worker only on a redelivery, never because a duplicate entry turned up.
   */
  redelivered: boolean;
}

export type QueueHandler = (jobId: string, delivery?: QueueDelivery) => Promise<void>;

export interface Queue {
  /**
   * True when ids survive a restart of this process and the queue itself redelivers the job of a
   * worker that died (BullMQ's stalled-job check). The engine then leaves `processing` jobs to
   * the queue on start, and a delivery of a `processing` job not running here is a takeover.
   * Default false (the in-process queue: the engine requeues interrupted jobs on start).
   */
  readonly durable?: boolean;
  /** Adds a job id. Delivery is at-least-once: the handler must tolerate a repeat. */
  enqueue(jobId: string, options?: EnqueueOptions): Promise<void>;
  /** Starts delivering ids to `handler`, at most `concurrency` at once. Call once. */
  process(handler: QueueHandler, options?: { concurrency?: number }): void;
  /** Stops taking new ids and waits for running handlers to settle. */
  close(): Promise<void>;
  /** Ids waiting (not running). Optional: used for health and overload decisions. */
  size?(): Promise<number>;
  /**
   * Only for a queue whose ids no other process can take (the in-process queue): whether a
   * handler takes them now (process() was called, close() was not). While it is false a job
   * enqueued there is never converted, so the HTTP service refuses new jobs (UNAVAILABLE) and
   * readiness fails its `worker` check. Leave it out for a shared queue (BullMQ): its workers may
   * run in other processes, which this one cannot see.
   */
  hasHandler?(): boolean;
}
