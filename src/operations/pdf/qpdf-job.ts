/**
 * Running qpdf with a job file (qpdf --job-json-file) instead of arguments: passwords then never
 * appear in the process list (/proc/<pid>/cmdline is readable by every local user), and a
 * password that starts with '-' is not taken for an option, as qpdf 11.3's positional
 * `--encrypt user owner 256` would. The file is written into the operation's private work folder.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type PdfToolOutcome, type PdfToolRunOptions, runPdfTool } from './pdf-tools.js';

export async function runQpdfJob(
  job: Record<string, unknown>,
  workDir: string,
  options: PdfToolRunOptions & { names?: Record<string, string> },
): Promise<PdfToolOutcome> {
  const jobFile = join(workDir, 'qpdf-job.json');
  await writeFile(jobFile, JSON.stringify(job), { mode: 0o600 });
  return runPdfTool('qpdf', [`--job-json-file=${jobFile}`], options);
}

/** qpdf's exit codes: 0 done, 2 errors, 3 done with warnings (a repaired file, for example). */
export const qpdfSucceeded = (outcome: PdfToolOutcome): boolean => outcome.code === 0 || outcome.code === 3;
