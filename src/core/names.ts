/**
 * File names come from clients and are untrusted: they are kept only as display names
 * (Content-Disposition, outputName) and never used to build a path or a storage key.
 */

const MAX_NAME_LENGTH = 200;

/**
 * Characters a name must not keep, beyond the ASCII ones: every control character (C0 and C1),
 * every format character (Unicode category Cf: the bidirectional embeddings, overrides, isolates
 * and marks that make `invoice\u202Efdp.jpg` display as `invoicegpj.pdf`, zero-width spaces and
 * joiners, the BOM, soft hyphens) and the line and paragraph separators. None of them is
 * visible; each can make a name read as something it is not.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * A safe display name: NFC-normalised, the last path segment (either separator), without control,
 * format and separator characters (INVISIBLE), quotes or leading dots, at most 200 characters,
 * keeping the extension. 'file' when nothing is left.
 */
export function sanitizeFileName(name: string): string {
  const lastSegment = name.normalize('NFC').split(/[/\\]/).pop() ?? '';
  let clean = lastSegment
    .replace(INVISIBLE, '')
    .replace(/["<>|:*?]/g, '')
    .trim();
  clean = clean.replace(/^\.+/, '').trim();
  if (clean.length > MAX_NAME_LENGTH) {
    const dot = clean.lastIndexOf('.');
    const extension = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : '';
    // By code points, so a character outside the BMP (an emoji, a rare CJK one) is never halved.
    const kept = Array.from(clean.slice(0, dot > 0 && extension ? dot : undefined));
    let stem = '';
    for (const char of kept) {
      if (stem.length + char.length > MAX_NAME_LENGTH - extension.length) break;
      stem += char;
    }
    clean = stem + extension;
  }
  return clean === '' ? 'file' : clean;
}

/** The base name without its last extension ('photo.heic' -> 'photo'). */
export function baseName(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(0, dot) : fileName;
}

/** The name a result is downloaded under: the input's base name with the target's extension. */
export function outputNameFor(inputName: string, targetExtension: string): string {
  return `${baseName(sanitizeFileName(inputName))}.${targetExtension}`;
}
