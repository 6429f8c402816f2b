/**
 * Running Debian's tesseract (Apache-2.0; `apt-get install tesseract-ocr tesseract-ocr-eng`) the
 * one way every OCR path needs: on one PNG whose header was already checked, with the languages
 * asked for (checked against what is installed, so a typo is a 400 naming the packages), one
 * OpenMP thread (see OCR_THREADS), and its words for a bad image mapped onto CORRUPT_INPUT.
 * Chosen over tesseract.js after measuring both on the same scans: see /work/notes/ocr.md.
 */
import { FileconvError } from '../../core/errors.js';
import { runTool, toolFailed } from '../../kit/command-tools.js';

/**
 * OpenMP threads per tesseract run. Tesseract's LSTM spins its OpenMP threads while waiting, so
 * on a busy 2-core machine two threads cost 7 to 15 times the CPU of one for the same page
 * (measured: an A4 page took 2.3 s of CPU with one thread, 17 to 31 s with two). Conversions
 * already run side by side; one thread each keeps them from starving one another.
 */
export const OCR_THREADS = '1';

/** What tesseract writes: plain text, or a PDF (the image with invisible text over it). */
export type TesseractOutput = 'txt' | 'pdf';

export interface TesseractRun {
  /** A PNG (or any image leptonica reads) whose pixel size was checked. */
  image: string;
  /** The output path without its extension: tesseract adds '.txt' or '.pdf'. */
  outputBase: string;
  output: TesseractOutput;
  /** Tesseract language codes ('eng', 'deu'), already checked with assertLanguages. */
  languages: readonly string[];
  /** Page segmentation mode (tesseract --psm). */
  psm: number;
  /** The image's resolution when it does not say (tesseract --dpi); omitted: the image's own. */
  dpi?: number | undefined;
  /** For 'pdf': only the invisible text, no image (to lay under a page that has the picture). */
  textOnly?: boolean;
  signal: AbortSignal;
  /** What to call the image in messages ('the image', 'page 3'). */
  name: string;
}

/** Tesseract's (and leptonica's) words for an image it could not read: the input's fault. */
const BAD_IMAGE =
  /Error in pixRead|Error in findFileFormat|Image file .* cannot be read|Unsupported image type|Error in fopenReadStream|image too (?:large|small)|libpng error|Read Error|Not a JPEG file|Premature end/i;

export async function runTesseract(run: TesseractRun): Promise<void> {
  const args = [
    run.image,
    run.outputBase,
    '-l',
    run.languages.join('+'),
    '--psm',
    String(run.psm),
    ...(run.dpi === undefined ? [] : ['--dpi', String(run.dpi)]),
    // Without this, every text output ends with a form feed, which would end our pages twice.
    '-c',
    'page_separator=',
    ...(run.textOnly ? ['-c', 'textonly_pdf=1'] : []),
    run.output,
  ];
  const outcome = await runTool('tesseract', args, {
    signal: run.signal,
    env: { OMP_THREAD_LIMIT: OCR_THREADS },
    names: { [run.image]: run.name, [run.outputBase]: 'output' },
  });
  if (outcome.code === 0) return;
  const code = BAD_IMAGE.test(outcome.stderr) ? 'CORRUPT_INPUT' : 'CONVERSION_FAILED';
  throw toolFailed('tesseract', outcome, `reading ${run.name}`, code);
}

let installed: Promise<readonly string[]> | undefined;

/** The languages tesseract has here (`tesseract --list-langs`), 'osd' left out: it is no script. */
export function installedLanguages(signal?: AbortSignal): Promise<readonly string[]> {
  installed ??= listLanguages(signal).catch((error: unknown) => {
    installed = undefined; // a later call may find tesseract installed by then
    throw error;
  });
  return installed;
}

async function listLanguages(signal: AbortSignal | undefined): Promise<readonly string[]> {
  const outcome = await runTool('tesseract', ['--list-langs'], { signal, timeoutMs: 30_000 });
  if (outcome.code !== 0) throw toolFailed('tesseract', outcome, 'listing its languages');
  // The first line says where the data is ('List of available languages in "..." (3):').
  return `${outcome.stdout}\n${outcome.stderr}`
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^[A-Za-z0-9_]+$/.test(line) && line !== 'osd');
}

/**
 * INVALID_OPTIONS when a language asked for has no traineddata here, naming the installed ones
 * and the Debian package that would add each missing one.
 */
export async function assertLanguages(languages: readonly string[], signal?: AbortSignal): Promise<void> {
  let available = await installedLanguages(signal);
  if (languages.some((language) => !available.includes(language))) {
    // A language package installed since the list was read counts without a restart.
    installed = undefined;
    available = await installedLanguages(signal);
  }
  const missing = languages.filter((language) => !available.includes(language));
  if (missing.length === 0) return;
  const packages = missing.map((language) => `tesseract-ocr-${language.toLowerCase().replaceAll('_', '-')}`);
  throw new FileconvError(
    'INVALID_OPTIONS',
    `OCR language${missing.length > 1 ? 's' : ''} not installed: ${missing.join(', ')}. Installed: ${available.join(', ') || 'none'}; add ${missing.length > 1 ? 'them' : 'it'} with apt-get install ${packages.join(' ')}.`,
    {
      details: { languages: missing, installed: available, install: `apt-get install ${packages.join(' ')}` },
    },
  );
}
