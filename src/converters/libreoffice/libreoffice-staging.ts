/**
 * The LibreOffice converter's file handling around a conversion: the input checked (present, not
 * empty, zip packages within the decompression limits) and staged under a name LibreOffice reads
 * the format from, the result checked and moved into place only when complete.
 */

import { copyFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FileconvError } from '../../core/errors.js';
import { assertNotEmpty } from '../../core/file-size.js';
import type { FormatName } from '../../core/formats/types.js';
import type { ConvertContext } from '../../core/ports/index.js';
import { linkInto } from '../../kit/place-file.js';
import { assertSafeZip, type ZipLimits } from '../../kit/zip-safety.js';
import { ZIP_SOURCES } from './libreoffice-filters.js';
import {
  hasMisnamedContentTypes,
  namesMisnamedContentTypes,
  respellContentTypes,
} from './ooxml-part-names.js';
import { assertNotTruncated } from './truncation-check.js';

/**
 * INTERNAL when the input is missing, CORRUPT_INPUT when empty or visibly truncated
 * (truncation-check.ts); zip packages through assertSafeZip. Resolves with a zip package's part
 * names (stageInput decides from them without reading the package again), else undefined.
 */
export async function checkInput(
  ctx: ConvertContext<unknown>,
  zipLimits: Partial<ZipLimits>,
): Promise<readonly string[] | undefined> {
  const size = await stat(ctx.inputPath).then(
    (info) => info.size,
    (error: unknown) => {
      throw new FileconvError('INTERNAL', 'The conversion input file is missing', { cause: error });
    },
  );
  assertNotEmpty(size);
  // Before LibreOffice opens it: LibreOffice inflates package parts without a bound of its own.
  const parts = ZIP_SOURCES.has(ctx.from)
    ? await assertSafeZip(ctx.inputPath, zipLimits, ctx.signal)
    : undefined;
  await assertNotTruncated(ctx.inputPath, ctx.from, size);
  return parts;
}

/** Office Open XML packages, whose content-types part LibreOffice looks up case-sensitively. */
const OOXML_SOURCES: ReadonlySet<FormatName> = new Set([
  'docx',
  'dotx',
  'docm',
  'xlsx',
  'xltx',
  'xlsm',
  'pptx',
  'potx',
  'pptm',
  'ppsx',
  'vsdx',
]);

/**
 * The input under a name LibreOffice can read the format from (storage keys have no extension),
 * alone in a private dir, so a relative link in the document can only point at our own files.
 * A symlink, or a copy where symlinks are refused; a copy with the name respelt for an OOXML
 * package that calls its content types '[content_types].xml' (ooxml-part-names.ts), told from
 * `parts` (checkInput's answer) when known, else from the package itself.
 */
export async function stageInput(
  inputPath: string,
  scratch: string,
  from: FormatName,
  parts: readonly string[] | undefined,
): Promise<string> {
  const staged = join(scratch, `input.${from}`);
  const misnamed =
    OOXML_SOURCES.has(from) &&
    (parts ? namesMisnamedContentTypes(parts) : await hasMisnamedContentTypes(inputPath));
  if (misnamed) {
    await copyFile(inputPath, staged);
    await respellContentTypes(staged);
    return staged;
  }
  await linkInto(inputPath, staged);
  return staged;
}

/** A filter can report success and write nothing: an empty result is not a result. */
export async function assertWritten(path: string, to: FormatName): Promise<void> {
  const written = await stat(path).catch(() => undefined);
  if (!written || written.size === 0) {
    throw new FileconvError('CONVERSION_FAILED', `LibreOffice reported success but wrote no ${to}`);
  }
}
