/**
 * Password protection with qpdf: protectPdf encrypts with AES-256 (PDF 2.0's R6, what current
 * viewers expect) and the permissions given; unlockPdf removes the encryption with the password.
 * A wrong password is PASSWORD_PROTECTED with details.reason 'wrong-password', so a caller can
 * ask again; an input that is not encrypted is copied and the result says so.
 */
import { randomBytes } from 'node:crypto';
import { copyFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { type WorkDirOptions, withWorkDir } from '../../kit/work-dir.js';
import { parseOperationOptions } from './operation-options.js';
import { openPdf, type PdfRunOptions, placeFile, readPdfBytes } from './pdf-document.js';
import { type PdfToolRunOptions, stderrTail, toolFailed } from './pdf-tools.js';
import { qpdfSucceeded, runQpdfJob } from './qpdf-job.js';

// qpdf reads passwords as bytes; a NUL would cut one short. writeOnly: a finished job keeps
// none (core/secret-options.ts).
const password = z
  .string()
  .max(127)
  .refine((value) => !value.includes('\0'), { message: 'No NUL characters' })
  .meta({ writeOnly: true });

export const pdfPermissionsSchema = z.strictObject({
  /** Printing: 'full', 'low' (low resolution only) or 'none'. Default 'full'. */
  print: z
    .enum(['full', 'low', 'none'])
    .default('full')
    .describe("Printing: 'full', 'low' or 'none'. Default 'full'."),
  /** Copying text and images out. Default true. */
  copy: z.boolean().default(true).describe('Copying text and images out. Default true.'),
  /** Changing the content. Default true. */
  modify: z.boolean().default(true).describe('Changing the content. Default true.'),
  /** Adding comments (annotations). Default true. */
  annotate: z.boolean().default(true).describe('Adding comments (annotations). Default true.'),
  /** Filling in forms. Default true. */
  fillForms: z.boolean().default(true).describe('Filling in forms. Default true.'),
  /** Inserting, deleting and rotating pages. Default true. */
  assemble: z.boolean().default(true).describe('Inserting, deleting and rotating pages. Default true.'),
});

export const protectOptionsSchema = z.strictObject({
  /** The password that opens the PDF (the user password). */
  password: password.min(1).describe('The password that opens the PDF (the user password).'),
  /** The password that lifts the permissions. Default: a random one nobody knows, so they hold. */
  ownerPassword: password
    .min(1)
    .optional()
    .describe('The password that lifts the permissions. Default: a random one, so the permissions hold.'),
  /** What someone who opens it with `password` may do. Default: everything. */
  permissions: pdfPermissionsSchema
    .optional()
    .describe('What someone who opens it with the password may do. Default: everything.'),
});

export const unlockOptionsSchema = z.strictObject({
  /** The PDF's password (user or owner); '' for a PDF that opens without one but has restrictions. */
  password: password.describe(
    "The PDF's password (user or owner); '' for one that opens without a password.",
  ),
});

type ToolOptions = PdfRunOptions & PdfToolRunOptions & WorkDirOptions;
export type ProtectOptions = z.input<typeof protectOptionsSchema> & ToolOptions;
export type UnlockOptions = z.input<typeof unlockOptionsSchema> & ToolOptions;

const yesNo = (allowed: boolean) => (allowed ? 'y' : 'n');

/** Writes `input` encrypted (AES-256) with `options.password` to `output`. */
export async function protectPdf(
  input: string,
  output: string,
  options: ProtectOptions,
): Promise<{ pages: number; encryption: 'AES-256' }> {
  const o = parseOperationOptions('protect', protectOptionsSchema, options);
  const signal = options.signal ?? new AbortController().signal;
  const pages = (await openPdf(input, options)).getPageCount();
  const permissions = pdfPermissionsSchema.parse(o.permissions ?? {});
  return withWorkDir(options, async (dir) => {
    const encrypted = join(dir, 'protected.pdf');
    const job = {
      inputFile: resolve(input),
      outputFile: encrypted,
      encrypt: {
        userPassword: o.password,
        ownerPassword: o.ownerPassword ?? randomBytes(24).toString('base64url'),
        '256bit': {
          print: permissions.print,
          extract: yesNo(permissions.copy),
          modifyOther: yesNo(permissions.modify),
          annotate: yesNo(permissions.annotate),
          form: yesNo(permissions.fillForms),
          assemble: yesNo(permissions.assemble),
        },
      },
    };
    const run = await runQpdfJob(job, dir, { ...options, signal, names: { [resolve(input)]: input } });
    if (!qpdfSucceeded(run)) throw toolFailed('qpdf', run, 'encrypting the PDF');
    throwIfAborted(signal);
    await placeFile(encrypted, output);
    return { pages, encryption: 'AES-256' as const };
  });
}

/** Writes `input` without its encryption to `output`, opened with `options.password`. */
export async function unlockPdf(
  input: string,
  output: string,
  options: UnlockOptions,
): Promise<{ pages: number; wasEncrypted: boolean }> {
  const o = parseOperationOptions('unlock', unlockOptionsSchema, options);
  const signal = options.signal ?? new AbortController().signal;
  await readPdfBytes(input, options);
  const names = { [resolve(input)]: input };
  return withWorkDir(options, async (dir) => {
    // --is-encrypted: exit 0 encrypted, 2 not.
    const probe = await runQpdfJob({ inputFile: resolve(input), isEncrypted: '' }, dir, {
      ...options,
      signal,
      names,
    });
    const unlocked = join(dir, 'unlocked.pdf');
    let wasEncrypted = true;
    if (probe.code === 2 && probe.stderr.trim() === '') {
      wasEncrypted = false;
      await copyFile(input, unlocked);
    } else {
      const job = { inputFile: resolve(input), outputFile: unlocked, password: o.password, decrypt: '' };
      const run = await runQpdfJob(job, dir, { ...options, signal, names });
      if (!qpdfSucceeded(run)) {
        if (/invalid password/i.test(run.stderr)) {
          throw new FileconvError('PASSWORD_PROTECTED', `The password does not open ${input}.`, {
            details: { reason: 'wrong-password' },
          });
        }
        if (run.code === 2) {
          throw new FileconvError(
            'CORRUPT_INPUT',
            `${input} is not a readable PDF: ${stderrTail(run.stderr)}`,
            {
              details: { stderr: stderrTail(run.stderr) },
            },
          );
        }
        throw toolFailed('qpdf', run, 'decrypting the PDF');
      }
    }
    throwIfAborted(signal);
    // Read back: also refuses what qpdf let through but is no PDF (CORRUPT_INPUT).
    const pages = (await openPdf(unlocked, { maxInputBytes: Number.MAX_SAFE_INTEGER })).getPageCount();
    await placeFile(unlocked, output);
    return { pages, wasEncrypted };
  });
}
