/**
 * The FileconvErrors of the LibreOffice converter's failures, with LibreOffice's own message where
 * there is one: a bridge answer (password, corrupt, failed, crashed), a timeout, a closed pool.
 */
import { FileconvError } from '../../core/errors.js';
import type { BridgeAnswer } from './libreoffice-process.js';

/**
 * LibreOffice's own output without the backtrace a crashing soffice prints ('Stack:' and frames
 * such as '/usr/lib/libreoffice/program/libuno_sal.so.3(+0x3f4d2)[0x7f5c1b23f4d2]'): addresses
 * and library paths mean nothing to whoever reads the error, and say more about the host than
 * an error message should. The lines around them ('Fatal exception: Signal 11') stay.
 */
export function withoutBacktrace(output: string): string[] {
  const frame = /\[0x[0-9a-f]+\]|\(\+0x[0-9a-f]+\)|^\s*#\d+\s+0x|^\s*\/\S+\.so(?:\.\d+)*\b|^\s*Stack:\s*$/i;
  return output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !frame.test(line));
}

/** Whether a conversion failed because soffice died under it (not for the document's sake, as far as we know). */
export function isCrash(error: unknown): boolean {
  return error instanceof FileconvError && error.details?.reason === 'crashed';
}

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
