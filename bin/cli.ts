/**
 * The fileconv command line: convert, formats, doctor. Errors print one line
 * (`fileconv: <message> [CODE]`) and exit non-zero; no stack traces for expected failures.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { booleanWordOf } from '../src/core/boolean-text.js';
import { FileconvError } from '../src/core/errors.js';
import { FORMAT_FAMILIES } from '../src/core/formats/types.js';
import type { SettingCommand } from '../src/preset/settings.js';
import type { PdfProtectFlags } from './commands/pdf.js';
import type { PdfFillFormFlags } from './commands/pdf-forms.js';
import { UsageError } from './support/usage-error.js';
import { fileconvVersion } from './support/version.js';

// Each command's module (and what it pulls in: Express for serve, BullMQ for worker, the engines)
// is imported when that command runs, so `convert` and `--help` never pay for the others.

/** The flags of the settings table (with zod, its schemas): what serve, worker, keys and config take. */
type SettingOptions = typeof import('./support/setting-options.js');

/** The commands whose flags come from the settings table. */
const SETTING_COMMANDS: ReadonlySet<string> = new Set(['serve', 'worker', 'keys', 'config']);

/**
 * Whether the command line names a command of the settings table (`fileconv help serve` too). The
 * table and zod, which its kinds are written in, then load; `convert` and `pdf` start without
 * them. A file named 'serve' among convert's arguments only loads them for nothing.
 */
function needsSettings(argv: readonly string[]): boolean {
  return argv.slice(2).some((word) => SETTING_COMMANDS.has(word));
}

function integer(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new InvalidArgumentError('expected a whole number.');
  return parsed;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('expected key=value.');
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/**
 * The program; `settings` adds the flags of serve, worker, keys and config check (without it they
 * are listed, and `main` gives it whenever the command line names one of them).
 */
export function buildProgram(settings?: SettingOptions): Command {
  const withSettings = (command: Command, of: SettingCommand): Command =>
    settings ? settings.addSettingOptions(command, settings.settingsOfCommand(of)) : command;
  const given = async (command: Command) =>
    (settings ?? (await import('./support/setting-options.js'))).givenSettings(command);
  const program = new Command('fileconv')
    .description(
      'Convert files between 120+ formats: images, video, audio, documents, spreadsheets, presentations, e-books, subtitles, data, fonts, archives.',
    )
    .version(fileconvVersion(), '-v, --version', 'print the version of fileconv')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  program
    .command('convert')
    .description('convert files; the target comes from --to or the output name')
    .argument(
      '<inputs...>',
      'files, folders, quoted globs (*, ?, **), an http(s) URL to capture (web page to pdf/png/jpg/webp), or - for stdin; `<input> <output>` without -o converts one file into the other',
    )
    .option(
      '-o, --output <path>',
      'the result: a file, a folder (ending in /, or existing), a name with {name} and {ext}, or - for stdout (default: beside the input; stdout for stdin)',
    )
    .option('-t, --to <format>', 'target format (default: from the output extension)')
    .option('-f, --from <format>', 'source format (default: detected from the content)')
    .option('-q, --quality <n>', 'quality 1-100 for lossy targets', integer)
    .option('-w, --width <px>', 'resize to this width (keeps the aspect ratio without --height)', integer)
    .option('--height <px>', 'resize to this height', integer)
    .option('--fit <mode>', 'cover | contain | fill | inside | outside')
    .option('--background <color>', 'colour behind transparency for targets without alpha, e.g. #ffffff')
    .option('--lossless', 'lossless encoding where the target supports it')
    .option('--effort <n>', 'encoder effort (higher: smaller and slower)', integer)
    .option('--keep-metadata', 'keep EXIF/ICC metadata (stripped by default)')
    .option('--no-animated', 'keep only the first frame of an animation')
    .option('--paper <size>', 'web pages to PDF: A4 (default), Letter, Legal, A3, A5 or Tabloid')
    .option('--landscape', 'web pages to PDF: landscape orientation')
    .option('--margin <lengths>', "web pages to PDF: page margins as in CSS, e.g. '20mm' or '10mm 15mm'")
    .option('--javascript', "web pages: run the page's scripts (off by default)")
    .option('--wait-for <what>', "web pages: 'load' (default), 'networkidle' or a CSS selector to wait for")
    .option('-O, --set <key=value>', 'any other converter option (repeatable)', keyValue)
    // The name before --set; -o is the output now, as in `fileconv pdf`, pandoc and curl.
    .addOption(new Option('--option <key=value>').argParser(keyValue).hideHelp())
    .option('-y, --force', 'replace an existing output (never an input)')
    .option('-n, --skip-existing', 'leave an existing output and report its input as skipped')
    .option('-r, --recursive', "folders: their subfolders' files too")
    .option('-j, --jobs <n>', 'files converted at once (default: the number of cores)', integer)
    .option('--timeout <seconds>', 'stop after this many seconds (each file)', integer)
    .option('--quiet', 'no progress bar, no line for a converted file')
    .option('--json', 'print a JSON report on stdout instead of a sentence on stderr')
    .addHelpText(
      'after',
      `
Many files: each result goes beside its input (as mogrify -format does), or into the folder -o
names (made if missing; the subfolders of a folder or a ** glob are kept there), or where a name
with {name} and {ext} says. All run in one process with warm engines, --jobs at a time; each file
gets a line on stderr, --json prints one object per file on stdout; exit 1 if any file failed,
once the others are done. An existing output is refused unless --force or --skip-existing.

Examples:
  fileconv convert report.docx report.pdf
  fileconv convert photo.heic --to jpg -q 85 -o out/
  fileconv convert "photos/**/*.heic" --to webp -o web/ --jobs 4
  fileconv convert docs/ --recursive --to pdf --skip-existing --json
  cat a.png | fileconv convert - --to webp -o - > a.webp`,
    )
    .action(async (inputs: string[], options) => {
      const { runConvert } = await import('./commands/convert.js');
      await runConvert(inputs, options);
    });

  withSettings(
    program.command('serve').description('run the conversion service (HTTP API and workers) on this machine'),
    'serve',
  ).action(async (_options, command: Command) => {
    const { runServe } = await import('./commands/serve.js');
    await runServe(await given(command));
  });

  withSettings(
    program
      .command('worker')
      .description(
        "run conversion workers only, on the shared queue (Redis) and storage (S3); the settings are serve's",
      ),
    'worker',
  ).action(async (_options, command: Command) => {
    const { runWorker } = await import('./commands/worker.js');
    await runWorker(await given(command));
  });

  const config = program
    .command('config')
    .description('the settings of `fileconv serve` and `fileconv worker`');
  config
    .command('schema')
    .description('print the JSON Schema of the config file, for editors ("$schema")')
    .action(async () => {
      const { runConfigSchema } = await import('./commands/config.js');
      runConfigSchema();
    });
  withSettings(
    config
      .command('check')
      .description(
        "print the effective settings of `fileconv serve` (serve's flags, environment, config file, defaults) as JSON, each with its source, secrets masked; exit 1 when they are invalid",
      ),
    'serve',
  ).action(async (_options, command: Command) => {
    const { runConfigCheck } = await import('./commands/config.js');
    await runConfigCheck(await given(command));
  });

  const keys = program.command('keys').description('manage API keys (stored hashed in the data dir)');
  // The data dir, Redis and config file are serve's settings, found as serve finds them.
  withSettings(
    keys
      .command('create')
      .description('create a key and print it once')
      .requiredOption('--plan <plan>', "plus | pro | business | enterprise, or a plan of the service's plans")
      .requiredOption('--account <id>', 'the account the key belongs to')
      .option('--label <text>', 'a note to recognise the key by')
      .option('--json', 'print JSON'),
    'keys',
  ).action(async (options) => {
    const { runKeysCreate } = await import('./commands/keys.js');
    await runKeysCreate(options);
  });
  withSettings(
    keys
      .command('list')
      .description('list keys (never the secrets)')
      .option('--account <id>', 'only this account')
      .option('--json', 'print JSON'),
    'keys',
  ).action(async (options) => {
    const { runKeysList } = await import('./commands/keys.js');
    await runKeysList(options);
  });
  withSettings(
    keys
      .command('revoke')
      .description('revoke a key: requests with it answer 401 from now on')
      .argument('<id>', 'the key id (from keys list)'),
    'keys',
  ).action(async (id: string, options) => {
    const { runKeysRevoke } = await import('./commands/keys.js');
    await runKeysRevoke(id, options);
  });

  program
    .command('formats')
    .description('list formats and the targets each converts to here')
    .option('--family <family>', `only this family (${FORMAT_FAMILIES.join(', ')})`)
    .option('--json', 'print JSON')
    .action(async (options) => {
      const { runFormats } = await import('./commands/formats.js');
      await runFormats(options);
    });

  const pdf = program
    .command('pdf')
    .description(
      'operations on whole PDFs: merge, split, rotate, info, meta, compress, pdfa, watermark, protect, unlock, thumbnail, fill-form, flatten, form-fields',
    );
  pdf
    .command('merge')
    .description('join PDFs, in the order given, into one')
    .argument('<inputs...>', 'two or more PDFs')
    .requiredOption('-o, --output <file>', 'the merged PDF')
    .action(async (inputs: string[], options: { output: string }) => {
      const { runPdf } = await import('./commands/pdf.js');
      await runPdf({ op: 'merge', inputs, output: options.output });
    });
  pdf
    .command('split')
    .description(
      'write the pages --pages selects into a new PDF, or --every-page into a zip of one PDF a page',
    )
    .argument('<input>', 'the PDF')
    .option('-p, --pages <ranges>', 'pages, e.g. 2-3,5 or 7- (1-based)')
    .option('--every-page', 'one PDF per page (of --pages, default all), packed as a zip')
    .requiredOption('-o, --output <file>', 'the new PDF, or the zip')
    .action(async (input: string, options: { pages?: string; everyPage?: boolean; output: string }) => {
      const { runPdf, runPdfSplitEveryPage } = await import('./commands/pdf.js');
      if (options.everyPage) {
        await runPdfSplitEveryPage(input, options);
        return;
      }
      if (options.pages === undefined) {
        throw new UsageError('pdf split needs --pages <ranges> or --every-page.');
      }
      await runPdf({ op: 'split', inputs: [input], output: options.output, pages: options.pages });
    });
  pdf
    .command('rotate')
    .description('rotate pages clockwise by a multiple of 90 degrees')
    .argument('<input>', 'the PDF')
    .requiredOption('-a, --angle <degrees>', '90, 180, 270 (or negative)', integer)
    .option('-p, --pages <ranges>', 'only these pages (default all)')
    .requiredOption('-o, --output <file>', 'the rotated PDF')
    .action(async (input: string, options: { angle: number; pages?: string; output: string }) => {
      const { runPdf } = await import('./commands/pdf.js');
      await runPdf({ op: 'rotate', inputs: [input], ...options });
    });

  pdf
    .command('info')
    .description("print a PDF's page count and document information (title, author, ...)")
    .argument('<input>', 'the PDF')
    .option('--json', 'print JSON')
    .action(async (input: string, options: { json?: boolean }) => {
      const { runPdfInfo } = await import('./commands/pdf.js');
      await runPdfInfo(input, options);
    });
  pdf
    .command('meta')
    .description("set a PDF's title, author, subject or keywords")
    .argument('<input>', 'the PDF')
    .option('--title <text>')
    .option('--author <text>')
    .option('--subject <text>')
    .option('--keywords <list>', 'comma-separated')
    .requiredOption('-o, --output <file>', 'the PDF with its new document information')
    .action(
      async (
        input: string,
        options: { title?: string; author?: string; subject?: string; keywords?: string; output: string },
      ) => {
        const { runPdfMeta } = await import('./commands/pdf.js');
        await runPdfMeta(input, options);
      },
    );

  pdf
    .command('compress')
    .description('recompress the images of a PDF at a JPEG quality and a largest resolution (Ghostscript)')
    .argument('<input>', 'the PDF')
    .option('-q, --quality <n>', 'JPEG quality 1-100 (default 70)', integer)
    .option('-r, --resolution <dpi>', 'largest image resolution kept, dpi (default 150)', integer)
    .requiredOption('-o, --output <file>', 'the smaller PDF (a copy of the input when it cannot be smaller)')
    .action(async (input: string, options: { quality?: number; resolution?: number; output: string }) => {
      const { runPdfCompress } = await import('./commands/pdf.js');
      await runPdfCompress(input, options);
    });
  pdf
    .command('pdfa')
    .description('convert a PDF to PDF/A for archiving (Ghostscript)')
    .argument('<input>', 'the PDF')
    .option('-l, --level <level>', '1b, 2b or 3b (default 2b)')
    .requiredOption('-o, --output <file>', 'the PDF/A file')
    .action(async (input: string, options: { level?: string; output: string }) => {
      const { runPdfA } = await import('./commands/pdf.js');
      await runPdfA(input, options);
    });
  pdf
    .command('watermark')
    .description('stamp text or an image on the pages of a PDF')
    .argument('<input>', 'the PDF')
    .option('--text <text>', 'the text to stamp')
    .option('--image <file>', 'an image to stamp (PNG, JPEG, WebP, ...)')
    .option('--opacity <0-1>', 'default 0.3', Number)
    .option(
      '--position <where>',
      'center, diagonal, top-left, top, top-right, left, right, bottom-left, bottom, bottom-right',
    )
    .option('--font-size <points>', 'text size (default 48; diagonal text fits the page)', Number)
    .option('--color <#rrggbb>', 'text colour (default #808080)')
    .option('-p, --pages <ranges>', 'only these pages (default all)')
    .requiredOption('-o, --output <file>', 'the stamped PDF')
    .action(async (input: string, options: Record<string, unknown> & { output: string }) => {
      const { runPdfWatermark } = await import('./commands/pdf.js');
      await runPdfWatermark(input, options);
    });
  pdf
    .command('protect')
    .description('encrypt a PDF with a password (AES-256, qpdf)')
    .argument('<input>', 'the PDF')
    .requiredOption('--password <password>', 'the password that opens it')
    .option('--owner-password <password>', 'the password that lifts the restrictions (default: a random one)')
    .option('--no-print', 'forbid printing')
    .option('--no-copy', 'forbid copying text and images')
    .option('--no-modify', 'forbid changes')
    .requiredOption('-o, --output <file>', 'the encrypted PDF')
    .action(async (input: string, options: PdfProtectFlags) => {
      const { runPdfProtect } = await import('./commands/pdf.js');
      await runPdfProtect(input, options);
    });
  pdf
    .command('unlock')
    .description('remove the password of a PDF (qpdf)')
    .argument('<input>', 'the encrypted PDF')
    .requiredOption('--password <password>', 'its password')
    .requiredOption('-o, --output <file>', 'the PDF without encryption')
    .action(async (input: string, options: { password: string; output: string }) => {
      const { runPdfUnlock } = await import('./commands/pdf.js');
      await runPdfUnlock(input, options);
    });
  pdf
    .command('thumbnail')
    .description('render the first page of a PDF as a PNG or WebP image')
    .argument('<input>', 'the PDF')
    .option('-w, --width <px>', 'width in pixels (default 200)', integer)
    .option('-f, --format <format>', 'png or webp (default: from the output name, else png)')
    .requiredOption('-o, --output <file>', 'the image')
    .action(async (input: string, options: { width?: number; format?: string; output: string }) => {
      const { runPdfThumbnail } = await import('./commands/pdf.js');
      await runPdfThumbnail(input, options);
    });
  pdf
    .command('form-fields')
    .description("list a PDF form's fields: name, type, value and the options offered")
    .argument('<input>', 'the PDF')
    .option('--json', 'print JSON (what --fields of fill-form reads back)')
    .action(async (input: string, options: { json?: boolean }) => {
      const { runPdfFormFields } = await import('./commands/pdf-forms.js');
      await runPdfFormFields(input, options);
    });
  pdf
    .command('fill-form')
    .description("set a PDF form's fields by name, and with --flatten draw them into the pages")
    .argument('<input>', 'the PDF with a form')
    .option(
      '--field <name=value>',
      'a text field, or the option of a radio group, dropdown or list (repeat)',
      keyValue,
    )
    .option('--check <name>', 'check a checkbox (repeat)', collect)
    .option('--uncheck <name>', 'uncheck a checkbox (repeat)', collect)
    .option('--fields <file>', 'a JSON file of values by field name (or a form-fields --json listing)')
    .option('--flatten', 'draw the values into the pages and remove the form')
    .requiredOption('-o, --output <file>', 'the filled PDF')
    .action(async (input: string, options: PdfFillFormFlags) => {
      const { runPdfFillForm } = await import('./commands/pdf-forms.js');
      await runPdfFillForm(input, options);
    });
  pdf
    .command('flatten')
    .description("draw a PDF form's fields into its pages and remove the form")
    .argument('<input>', 'the PDF with a form')
    .requiredOption('-o, --output <file>', 'the flattened PDF')
    .action(async (input: string, options: { output: string }) => {
      const { runPdfFlatten } = await import('./commands/pdf-forms.js');
      await runPdfFlatten(input, options);
    });

  program
    .command('doctor')
    .description('check which conversion engines are available, and how to install the missing ones')
    .option('--json', 'print JSON')
    .action(async (options) => {
      const { runDoctor } = await import('./commands/doctor.js');
      process.exitCode = await runDoctor(options);
    });

  return program;
}

/**
 * FILECONV_DEBUG in the one boolean syntax (FILECONV_DEBUG=0 is off). Another word still turns
 * it on: this runs while an error is reported, which a refusal here would hide.
 */
function debugWanted(): boolean {
  const text = process.env.FILECONV_DEBUG;
  return text !== undefined && text.trim() !== '' && booleanWordOf(text) !== false;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram(
    needsSettings(argv) ? await import('./support/setting-options.js') : undefined,
  );
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed the usage problem (or the help text, with exit code 0); a
      // usage problem exits 2, as the README says and as POSIX tools do.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof FileconvError) {
      process.stderr.write(`fileconv: ${error.message} [${error.code}]\n`);
      return error instanceof UsageError ? 2 : 1;
    }
    process.stderr.write(
      `fileconv: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    if (debugWanted()) console.error(error);
    return 70;
  }
}
