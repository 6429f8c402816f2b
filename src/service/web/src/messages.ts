/** What went wrong, in words: the API's message and code, and what the user can do about it. */
import { ApiError } from './api.js';

const ADVICE: Record<string, string> = {
  UNSUPPORTED_FORMAT:
    'Choose a file in one of the supported formats, or rename it if its extension is wrong.',
  UNSUPPORTED_CONVERSION: 'Pick another target format.',
  CONTENT_MISMATCH: 'The contents do not match the file name: check its extension, or save it again.',
  CORRUPT_INPUT: 'The file may be damaged: open it on your computer to check, or export it again.',
  PASSWORD_PROTECTED: 'Remove the password from the file, then try again.',
  INPUT_LIMIT_EXCEEDED: 'Make the file smaller (fewer pixels, pages or minutes), then try again.',
  FILE_TOO_LARGE: 'Choose a smaller file, or use an API key of a plan with a larger limit.',
  INVALID_OPTIONS: 'Check the options of this conversion.',
  CONVERSION_TIMEOUT: 'The conversion took too long: try a smaller file.',
  CONVERSION_FAILED: 'Try again; if it fails again, try another target format.',
  OVERLOADED: 'The server is busy: try again in a minute.',
  UNAVAILABLE: 'The service cannot take this right now: try again in a minute.',
  URL_EXPIRED: 'The upload link expired: convert the file again.',
  RESULT_EXPIRED: 'The result has been deleted: convert the file again.',
  URL_UNREACHABLE: 'Check the address, and that the page is online and public.',
  UNSAFE_INPUT: 'The service does not fetch private addresses or local files.',
  UNAUTHORIZED: 'Check the API key, or forget it to convert on the free plan.',
  NETWORK: 'Check your connection, then try again.',
};

/** "message (CODE). advice" for a failed file or tool; a time in the message is in local time. */
export function describeError(error: unknown): { message: string; code: string; advice: string } {
  if (error instanceof ApiError) {
    return { message: localTimes(error.message), code: error.code, advice: ADVICE[error.code] ?? '' };
  }
  if (error instanceof TypeError) {
    return { message: 'The server could not be reached.', code: 'NETWORK', advice: ADVICE.NETWORK ?? '' };
  }
  return { message: String(error), code: 'INTERNAL', advice: '' };
}

export function isLimit(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.code === 'QUOTA_EXCEEDED' || error.code === 'RATE_LIMITED');
}

/**
 * A reset time as the person's clock shows it: "14:05" today, "Tue 00:00" on another day (in
 * their locale's own form: "2:05 PM"). The one form the page uses for every reset it shows.
 */
export function localResetTime(resetAt: Date, now = new Date()): string {
  const sameDay = resetAt.toDateString() === now.toDateString();
  return new Intl.DateTimeFormat(undefined, {
    ...(sameDay ? {} : { weekday: 'short' }),
    hour: '2-digit',
    minute: '2-digit',
  }).format(resetAt);
}

/** The server's UTC timestamps ("the quota resets at 2026-12-08T00:00:00.000Z") in local time. */
function localTimes(message: string): string {
  return message.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z/g, (stamp) =>
    localResetTime(new Date(stamp)),
  );
}

/** A 429 in words: what the limit is, when it resets (once), and what a paid plan would change. */
export function limitMessage(error: ApiError): string {
  const message = localTimes(error.message);
  const resetAt = error.details.resetAt
    ? new Date(error.details.resetAt)
    : error.retryAfter
      ? new Date(Date.now() + error.retryAfter * 1000)
      : undefined;
  // The server's message may say when already ("resets at", "try again in"): never twice.
  const said = /\bresets\b|\btry again in\b/i.test(message);
  const when = resetAt && !said ? ` The limit resets at ${localResetTime(resetAt)}.` : '';
  const paid =
    error.code === 'QUOTA_EXCEEDED'
      ? ' A paid plan allows many more conversions a day and larger files: enter its API key under "Your plan".'
      : ' A paid plan allows more requests a minute: enter its API key under "Your plan".';
  return `${message}${when}${paid}`;
}
