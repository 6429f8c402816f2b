/**
 * Reads an archive's entry headers before anything is extracted: bsdtar rewrites the archive,
 * whatever its format, as a pax tar stream on stdout (nothing touches the disk), and each header
 * is checked against the rules (archive-rules.ts) as it arrives. The first breach stops bsdtar
 * there, so a 10-million-entry archive costs no more than its first 10,001 headers. Every entry
 * is decompressed on the way (and counted, never stored), so an archive that only breaks midway
 * is found here too.
 */
import { stat } from 'node:fs/promises';
import { FileconvError } from '../../core/errors.js';
import { stderrTail } from '../../kit/command-tools.js';
import { zipBombError } from '../../kit/zip-safety.js';
import { runArchiveTool } from './archive-process.js';
import { type ArchiveLimits, ArchiveRules } from './archive-rules.js';
import { TarFormatError, TarHeaderReader } from './tar-header-reader.js';

/** libarchive's words for an entry it cannot decrypt. */
const ENCRYPTED = /encrypt|passphrase|password/i;
/** libarchive's warning when an entry's data outgrows the size its header declared. */
const OUTGROWN = /Truncated write|file may have grown|Too much data/i;

/**
 * What bsdtar says after its prompts for a passphrase: it prints "Enter passphrase:" (to stderr,
 * there being no terminal) for each try at an encrypted entry, thousands of times, and the kept
 * end of stderr may start mid-prompt. Noise, not the reason; nor is its "(null)" message.
 */
function afterPrompts(stderr: string): string {
  const end = stderr.lastIndexOf('passphrase:');
  return (end < 0 ? stderr : stderr.slice(end + 'passphrase:'.length)).replace(/bsdtar: \(null\)/g, '');
}

/** CORRUPT_INPUT (or PASSWORD_PROTECTED) from what bsdtar said about the input. */
export function unreadableArchive(stderr: string): FileconvError {
  if (ENCRYPTED.test(stderr)) {
    const tail = stderrTail(afterPrompts(stderr));
    return new FileconvError(
      'PASSWORD_PROTECTED',
      `The archive is encrypted: its entries need a password, and fileconv opens none${tail ? ` (${tail})` : ''}`,
      { details: { reason: 'archive', stderr: tail } },
    );
  }
  const tail = stderrTail(stderr);
  return new FileconvError('CORRUPT_INPUT', `The archive cannot be read: ${tail || 'bsdtar failed'}`, {
    details: { reason: 'archive', stderr: tail },
  });
}

/** The entries' names in archive order, once every rule holds; throws at the first that does not. */
export async function inspectArchive(
  path: string,
  limits: ArchiveLimits,
  signal: AbortSignal,
): Promise<readonly string[]> {
  const rules = new ArchiveRules(limits, (await stat(path)).size);
  const reader = new TarHeaderReader();
  const outcome = await runArchiveTool('bsdtar', ['-c', '-f', '-', '--format', 'pax', `@${path}`], {
    signal,
    names: { [path]: 'the input' },
    onStdout: (chunk) => {
      let entries: ReturnType<TarHeaderReader['push']>;
      try {
        entries = reader.push(chunk);
      } catch (error) {
        if (error instanceof TarFormatError) {
          throw new FileconvError('CORRUPT_INPUT', `The archive cannot be read: ${error.message}`, {
            cause: error,
            details: { reason: 'archive' },
          });
        }
        throw error;
      }
      for (const entry of entries) rules.add(entry);
      // Read to the end even past the end marker: bsdtar's exit code says whether every entry was whole.
      return undefined;
    },
  });
  if (OUTGROWN.test(outcome.stderr)) {
    throw zipBombError('an entry extracts to more than its header declares', {});
  }
  if (outcome.code !== 0) throw unreadableArchive(outcome.stderr);
  if (!reader.ended) throw unreadableArchive(outcome.stderr || 'the archive ends early');
  rules.finish();
  return rules.names;
}
