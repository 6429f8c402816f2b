/**
 * The FileconvErrors of the LibreOffice converter's failures, with LibreOffice's own message where
 * there is one: a bridge answer (password, corrupt, failed, crashed), a timeout, a closed pool.
 */
import { FileconvError } from '../../../src/errors.js';
import type { BridgeAnswer } from './libreoffice-process.js';

/** A failed answer as the FileconvError it stands for, with LibreOffice's message. */
export function answerError(answer: BridgeAnswer & { ok: false }): FileconvError {
  const details = { engine: 'libreoffice', reason: answer.kind };
  switch (answer.kind) {
    case 'password':
      return new FileconvError('PASSWORD_PROTECTED', 'The file is password-protected.', { details });
    case 'corrupt':
      return new FileconvError('CORRUPT_INPUT', answer.message, { details });
    case 'crashed':
      return new FileconvError(
        'CONVERSION_FAILED',
        `LibreOffice stopped while converting: ${answer.message}`,
        {
          details,
        },
      );
    default:
      return new FileconvError('CONVERSION_FAILED', answer.message, { details });
  }
}

export function timeoutError(timeoutMs: number, cause?: unknown): FileconvError {
  return new FileconvError(
    'CONVERSION_TIMEOUT',
    `LibreOffice took longer than ${timeoutMs} ms and was stopped.`,
    {
      cause,
      details: { engine: 'libreoffice', timeoutMs },
    },
  );
}

export function closedError(cause?: unknown): FileconvError {
  return new FileconvError('CANCELED', 'The LibreOffice converter was closed.', { cause });
}
