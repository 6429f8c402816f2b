/** Abort handling for converters lives in the core (src/abort.ts); kept here for existing imports. */
export { abortError, raceAbort, throwIfAborted } from '../../../src/abort.js';
