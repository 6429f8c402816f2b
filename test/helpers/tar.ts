/**
 * Writes tar archives byte by byte in tests, for the entries no archiver will make on request:
 * '../' and absolute names, links out of the archive, device files, thousands of entries.
 * Plain ustar headers (names up to 100 bytes), as POSIX describes them.
 */

export interface TarEntrySpec {
  name: string;
  /** ustar typeflag: '0' file (default), '1' hard link, '2' symlink, '3' character device, '5' folder. */
  type?: '0' | '1' | '2' | '3' | '5';
  linkName?: string;
  data?: Buffer;
}

function field(header: Buffer, offset: number, length: number, value: string): void {
  header.write(value, offset, length, 'utf8');
}

function octal(header: Buffer, offset: number, length: number, value: number): void {
  field(header, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

function header(entry: TarEntrySpec): Buffer {
  const block = Buffer.alloc(512);
  field(block, 0, 100, entry.name);
  octal(block, 100, 8, entry.type === '5' ? 0o755 : 0o644);
  octal(block, 108, 8, 0);
  octal(block, 116, 8, 0);
  octal(block, 124, 12, entry.data?.length ?? 0);
  octal(block, 136, 12, 1_700_000_000);
  block.fill(0x20, 148, 156); // the checksum counts its own field as spaces
  field(block, 156, 1, entry.type ?? '0');
  field(block, 157, 100, entry.linkName ?? '');
  field(block, 257, 8, 'ustar\u000000');
  let sum = 0;
  for (const byte of block) sum += byte;
  field(block, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** A whole tar archive of `entries`, with the two zero blocks that end it. */
export function tarBytes(entries: readonly TarEntrySpec[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(header(entry));
    const data = entry.data ?? Buffer.alloc(0);
    if (data.length > 0) parts.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}
