/**
 * Maps what the document libraries throw onto stable FileconvError codes. Their errors are plain
 * Errors (pdf-lib even throws strings), so this looks at the class and message; the original is
 * always kept as `cause`, and messages never carry file paths (they reach clients in job errors).
 */
import { type ErrorCode, FileconvError } from '../../core/errors.js';

/** mammoth and JSZip messages that mean "this is not a (readable) docx". */
const NOT_A_DOCX =
  /Could not find the body element|Could not find (?:main document|file in options)|end of central directory|Corrupted zip|is this a zip file|Invalid (?:signature|zip)|End of data reached|unexpected (?:close tag|end)|Unclosed root tag|Non-whitespace before first tag|Invalid character|Text data outside of root node|xmldom error|element parse error/i;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The first line of a library message with file paths replaced. */
function summary(error: unknown): string {
  const line = message(error).split('\n', 1)[0] ?? '';
  return line.replace(/(?<![\w.])\/(?:[^\s:/'"]+\/)*[^\s:/'"]+/g, '<file>').slice(0, 300);
}

export function mapDocumentError(error: unknown, what: string, docx = false): FileconvError {
  if (error instanceof FileconvError) return error;
  const text = message(error);
  let code: ErrorCode = 'CONVERSION_FAILED';
  let prefix = `The ${what} failed`;
  // Recursive parsers (turndown's DOM walk, marked's block quotes, mammoth's XML) overflow the
  // stack on absurdly deep nesting; that is the input's size, not a bug.
  if (error instanceof RangeError && /call stack/i.test(text)) {
    code = 'INPUT_LIMIT_EXCEEDED';
    prefix = 'The document is nested too deeply';
  } else if ((error as { code?: unknown } | null)?.code === 'ENOENT') {
    code = 'INTERNAL';
    prefix = 'The conversion input file is missing';
  } else if (docx && NOT_A_DOCX.test(text)) {
    code = 'CORRUPT_INPUT';
    prefix = 'The file is not a readable Word (docx) document';
  }
  return new FileconvError(code, `${prefix}: ${summary(error)}`, { cause: error });
}
