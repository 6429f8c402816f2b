/**
 * A command line that asks for something impossible (flags that contradict each other, a missing
 * target): the user's typing, not the files, so the CLI exits 2 as for commander's own usage errors.
 */
import { FileconvError } from '../../src/core/errors.js';

export class UsageError extends FileconvError {
  constructor(message: string) {
    super('INVALID_REQUEST', message);
  }
}
