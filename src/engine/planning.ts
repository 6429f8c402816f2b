/**
 * Deciding what a conversion is before running it: which format the input really is (from its
 * bytes, checked against what the caller declared), and which chain of steps produces the target.
 */

import { FileconvError } from '../core/errors.js';
import { assertNotEmpty } from '../core/file-size.js';
import { isEncryptedOoxml, ZIP_PACKAGES } from '../core/formats/detect-containers.js';
import { BUILTIN_FORMATS } from '../core/formats/format-registry.js';
import {
  detectFormat,
  FORMATS,
  type FormatRegistry,
  getFormat,
  isContentCompatible,
} from '../core/formats/index.js';
import type { FormatName } from '../core/formats/types.js';
import type { ConversionPlan } from '../core/graph/index.js';
import type { OutputPackaging } from '../core/ports/index.js';
import { outputPackaging, validateOptions } from './conversion.js';
import type { ConversionContext, FindPathOptions } from './conversion-context.js';

/**
 * The source format of `head` (the first bytes of the input), among the engine's `formats` (by
 * default the built-in ones). A
 * declared format (or, failing that, the file name's extension) must agree with the bytes:
 * CONTENT_MISMATCH otherwise. Without either, the detected format is used. Empty input is
 * CORRUPT_INPUT; an encrypted Office document is PASSWORD_PROTECTED. A host's format is
 * recognised by its own detection first; the built-in formats' rules are the built-in ones.
 */
export async function resolveSourceFormat(
  head: Uint8Array,
  declared: string | undefined,
  fileName?: string,
  formats: FormatRegistry = BUILTIN_FORMATS,
): Promise<FormatName> {
  assertNotEmpty(head.length);
  const claimed =
    declared !== undefined
      ? formats.require(declared)
      : fileName
        ? formats.fromExtension(fileName)
        : undefined;
  const custom = formats.detectCustom(head);
  if (claimed && formats.isCustom(claimed.name)) {
    if (custom === claimed.name) return custom;
    throw contentMismatch(claimed.name, custom ?? (await detectFormat(head)));
  }
  if (!claimed && custom) return custom;
  // An encrypted docx/xlsx/pptx is a compound file, not a zip: say what is wrong with it rather
  // than that its content does not match.
  if (isEncryptedOoxml(head)) {
    throw new FileconvError(
      'PASSWORD_PROTECTED',
      'The file is password-protected (an encrypted Office document).',
    );
  }
  const detected = await detectFormat(head);
  // A name is a weaker claim than a declared format: where the bytes tell a compatible format
  // apart that the name lumps together (an .ogg holding Theora video), the bytes win.
  if (
    claimed &&
    declared === undefined &&
    detected !== undefined &&
    NAME_YIELDS_TO.get(claimed.name)?.includes(detected) &&
    getFormat(detected)
  ) {
    return detected;
  }
  if (claimed) {
    if (!isContentCompatible(claimed.name, detected)) throw contentMismatch(claimed.name, detected);
    return claimed.name;
  }
  // Detection may name only a container ('cfb', 'xz'): without a declared format that is not enough.
  const recognised = detected === undefined ? undefined : getFormat(detected);
  if (!recognised) throw unrecognised(detected);
  return recognised.name;
}

/** CONTENT_MISMATCH: the file is not the format it was said to be. */
function contentMismatch(claimed: FormatName, detected: string | undefined): FileconvError {
  const what = detected ? `a ${detected} file` : 'not a file of any known format';
  return new FileconvError(
    'CONTENT_MISMATCH',
    `The file is said to be ${claimed}, but its content is ${what}.`,
    {
      details: { declared: claimed, detected: detected ?? null },
    },
  );
}

/**
 * UNSUPPORTED_FORMAT for bytes no format was recognised in. Advice is given only where it works:
 * a container (an OLE file, a bzip2 stream) names the formats that declaring would let through;
 * unknown bytes get none, since declaring a format would only meet CONTENT_MISMATCH.
 */
function unrecognised(detected: string | undefined): FileconvError {
  if (detected === undefined) {
    return new FileconvError(
      'UNSUPPORTED_FORMAT',
      'The file format could not be recognised from its content: it is none of the formats fileconv reads (GET /api/formats, or `fileconv formats`, lists them).',
    );
  }
  // Built-in formats only: no host format is compatible with a container.
  const candidates = FORMATS.filter((format) => isContentCompatible(format.name, detected)).map(
    (f) => f.name,
  );
  return new FileconvError(
    'UNSUPPORTED_FORMAT',
    `The file is a ${detected} container whose content does not say which format it is: declare it as ${candidates.join(', ') || 'its format'}.`,
    { details: { detected, candidates } },
  );
}

/** Extension -> the formats its bytes may show instead, which the name cannot tell apart. */
const NAME_YIELDS_TO: ReadonlyMap<FormatName, readonly string[]> = new Map([
  // Ogg is audio by name (.ogg), video when a Theora stream is in it (detect.ts reads the streams).
  ['ogg', ['ogv']],
  // A .zip upload holding a docx, an EPUB or a zipped web page is that package: it used to be
  // detected as such when no format claimed .zip, and converting it as what it is stays the
  // useful reading. Declaring 'zip' keeps it an archive (to repack a docx's parts as a tar).
  ['zip', ZIP_PACKAGES],
  // A favicon.ico is often a bare PNG under that name (browsers take it as one): found by the
  // real-files survey in a Debian package. The bytes say what it is; declaring 'ico' still refuses it.
  ['ico', ['png']],
]);

export interface PlannedConversion {
  plan: ConversionPlan;
  options: Record<string, unknown>;
  /** 'zip' when the result is an archive of several target files; undefined for one file. */
  packaging: OutputPackaging | undefined;
}

/**
 * The chain from `from` to the target, and the options validated for it. With `explainMissing`
 * (a direct conversion, a job), a conversion only uninstalled engines could make is
 * ENGINE_UNAVAILABLE with their install line; otherwise (a plan asked for to describe it) it is
 * UNSUPPORTED_CONVERSION. With `declared` (an API node,
 * whose workers convert), the chain over the converters' declared edges, and the options
 * validated with their registrations' schemas: no engine is loaded or checked.
 */
export async function planConversion(
  context: ConversionContext,
  from: FormatName,
  target: string,
  options: Record<string, unknown> | undefined,
  { explainMissing = false, declared = false }: FindPathOptions = {},
): Promise<PlannedConversion> {
  const to = context.formats.require(target).name;
  const plan = await context.findPath(from, to, undefined, { explainMissing, declared });
  const declarationOf = (name: string) => context.converters.declarationOf(name, declared);
  const validated = validateOptions(plan, declarationOf, options);
  return { plan, options: validated, packaging: outputPackaging(plan, declarationOf, validated) };
}
