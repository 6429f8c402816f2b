import { describe, expect, it } from 'vitest';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { testQueue } from '../../src/testing/index.js';

testQueue('memory', () => createMemoryQueue({ onError: () => {} }));

describe('createMemoryQueue', () => {
  it('validates options naming the option, expected and given', () => {
    expect(() => createMemoryQueue({ onError: 'log' as never })).toThrow(
      /option "onError" must be a function, got "log"/,
    );
    expect(() => createMemoryQueue(null as never)).toThrow(/option "options" must be an object/);
    const queue = createMemoryQueue();
    expect(() => queue.process(async () => {}, { concurrency: 0 })).toThrow(
      /"concurrency" must be a positive integer, got 0/,
    );
  });

  it('reports handler failures to onError with the job id', async () => {
    const errors: [unknown, string][] = [];
    const queue = createMemoryQueue({ onError: (error, jobId) => errors.push([error, jobId]) });
    queue.process(async (jobId) => {
      throw new Error(`failed ${jobId}`);
    });
    await queue.enqueue('job_1');
    await queue.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]![1]).toBe('job_1');
    expect((errors[0]![0] as Error).message).toBe('failed job_1');
  });

  it('keeps delivering when onError itself throws', async () => {
    const delivered: string[] = [];
    const queue = createMemoryQueue({
      onError: () => {
        throw new Error('hook failed');
      },
    });
    queue.process(async (jobId) => {
      delivered.push(jobId);
      if (jobId === 'bad') throw new Error('bad');
    });
    await queue.enqueue('bad');
    await queue.enqueue('good');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await queue.close();
    expect(delivered).toEqual(['bad', 'good']);
  });

  it('refuses invalid ids and priorities', async () => {
    const queue = createMemoryQueue();
    await expect(queue.enqueue('')).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(queue.enqueue('job', { priority: Number.NaN })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });

  it('does not start waiting ids after close', async () => {
    const queue = createMemoryQueue();
    await queue.enqueue('a');
    await queue.enqueue('b');
    await queue.close();
    const delivered: string[] = [];
    expect(() => queue.process(async (jobId) => void delivered.push(jobId))).toThrow(/closed/);
    expect(await queue.size?.()).toBe(2);
  });

  it('orders a large backlog by priority, then by arrival', async () => {
    const queue = createMemoryQueue();
    const expected: string[] = [];
    for (let index = 0; index < 1000; index++) await queue.enqueue(`job_${index}`, { priority: index % 7 });
    for (let priority = 6; priority >= 0; priority--) {
      for (let index = priority; index < 1000; index += 7) expected.push(`job_${index}`);
    }
    const delivered: string[] = [];
    queue.process(async (jobId) => void delivered.push(jobId));
    while (delivered.length < 1000) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(delivered).toEqual(expected);
    await queue.close();
  });
});
