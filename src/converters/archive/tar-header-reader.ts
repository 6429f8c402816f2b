/**
 * Reads the entry headers of a tar stream as it arrives, chunk by chunk, skipping the data: what
 * the archive inspection needs from the pax stream bsdtar writes of any archive. Understands
 * ustar and pax headers (long and UTF-8 names, large sizes, GNU sparse sizes) and GNU long-name
 * records; holds at most one header's extension records in memory.
 */

/**
 * One archive entry as the tar stream describes it. Names are byte strings (latin1: one char per
 * byte), not decoded text: a name that is not UTF-8 (an old Windows zip's CP437 names) must reach
 * the repack byte for byte to find its extracted file. displayName() decodes one for people.
 */
export interface TarEntry {
  /** The entry's path as stored (pax 'path' when present), as a byte string. */
  name: string;
  /** The tar typeflag: '0' file, '1' hard link, '2' symlink, '3'/'4' device, '5' folder, '6' FIFO. */
  type: string;
  /** Link target of a symlink or hard link; '' otherwise. */
  linkName: string;
  /** Bytes the entry holds once extracted (a sparse file's full size). */
  size: number;
}

const BLOCK = 512;
const NO_DATA_TYPES = new Set(['2', '3', '4', '5', '6']);
/** Extension records larger than this are not a real archive's names but an attack on memory. */
const MAX_EXTENSION_BYTES = 1024 * 1024;

export class TarFormatError extends Error {}

function text(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return Buffer.from(end === -1 ? bytes : bytes.subarray(0, end)).toString('latin1');
}

/** A numeric header field: octal text, or base-256 when the first byte's high bit is set. */
function numeric(bytes: Uint8Array): number {
  if (((bytes[0] ?? 0) & 0x80) !== 0) {
    let value = (bytes[0] ?? 0) & 0x7f;
    for (const byte of bytes.subarray(1)) value = value * 256 + byte;
    return value;
  }
  const digits = text(bytes).trim();
  if (digits !== '' && !/^[0-7]+$/.test(digits)) throw new TarFormatError(`bad number field '${digits}'`);
  return digits === '' ? 0 : Number.parseInt(digits, 8);
}

/** A byte-string name as text for messages (UTF-8, with U+FFFD where the bytes are not). */
export function displayName(name: string): string {
  return Buffer.from(name, 'latin1').toString('utf8');
}

/** Whether 512 bytes are a tar header: the ustar magic, or failing it (v7 tar) a matching checksum. */
export function isTarHeader(block: Uint8Array): boolean {
  if (block.length < BLOCK) return false;
  if (Buffer.from(block.subarray(257, 262)).toString('latin1') === 'ustar') return true;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  try {
    return sum !== 8 * 0x20 && numeric(block.subarray(148, 156)) === sum;
  } catch {
    return false;
  }
}

/** pax records ('<length> <key>=<value>\n') of one extended header. */
function paxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length = space === -1 ? Number.NaN : Number.parseInt(data.toString('latin1', at, space), 10);
    if (!Number.isInteger(length) || length <= 0 || at + length > data.length) break;
    const record = data.toString('latin1', space + 1, at + length - 1);
    const equals = record.indexOf('=');
    if (equals > 0) records.set(record.slice(0, equals), record.slice(equals + 1));
    at += length;
  }
  return records;
}

type State =
  | { kind: 'header' }
  | { kind: 'skip'; remaining: number }
  | { kind: 'extension'; type: string; size: number; chunks: Buffer[]; have: number }
  | { kind: 'end' };

export class TarHeaderReader {
  private state: State = { kind: 'header' };
  private pending = Buffer.alloc(0);
  private pax = new Map<string, string>();
  private longName: string | undefined;
  private longLink: string | undefined;

  /** True once the end-of-archive marker has been read. */
  get ended(): boolean {
    return this.state.kind === 'end';
  }

  /** Feeds the next chunk; returns the entries whose headers it completed. */
  push(chunk: Buffer): TarEntry[] {
    const entries: TarEntry[] = [];
    let data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (data.length > 0 && this.state.kind !== 'end') {
      const state = this.state;
      if (state.kind === 'skip') {
        const taken = Math.min(state.remaining, data.length);
        data = data.subarray(taken);
        state.remaining -= taken;
        if (state.remaining === 0) this.state = { kind: 'header' };
        continue;
      }
      if (state.kind === 'extension') {
        const padded = Math.ceil(state.size / BLOCK) * BLOCK;
        const taken = Math.min(padded - state.have, data.length);
        state.chunks.push(data.subarray(0, taken));
        state.have += taken;
        data = data.subarray(taken);
        if (state.have === padded) this.finishExtension(state);
        continue;
      }
      if (data.length < BLOCK) {
        this.pending = Buffer.from(data);
        break;
      }
      const block = data.subarray(0, BLOCK);
      data = data.subarray(BLOCK);
      const entry = this.readHeader(block);
      if (entry) entries.push(entry);
    }
    return entries;
  }

  private readHeader(block: Buffer): TarEntry | undefined {
    if (block.every((byte) => byte === 0)) {
      this.state = { kind: 'end' };
      return undefined;
    }
    if (!isTarHeader(block)) throw new TarFormatError('not a tar header');
    const type = String.fromCharCode(block[156] ?? 0x30);
    const size = numeric(block.subarray(124, 136));
    if (type === 'x' || type === 'g' || type === 'L' || type === 'K') {
      if (size > MAX_EXTENSION_BYTES) throw new TarFormatError(`an extended header of ${size} bytes`);
      this.state = size === 0 ? { kind: 'header' } : { kind: 'extension', type, size, chunks: [], have: 0 };
      return undefined;
    }
    const ustar = block.toString('latin1', 257, 262) === 'ustar';
    const prefix = ustar ? text(block.subarray(345, 500)) : '';
    const shortName = text(block.subarray(0, 100));
    const entry: TarEntry = {
      // A sparse file in pax (GNU's formats 0.1 and 1.0, as bsdtar rewrites any sparse member)
      // is stored under a made-up 'GNUSparseFile.<pid>/<name>' path; its name is GNU.sparse.name.
      name:
        this.pax.get('GNU.sparse.name') ??
        this.pax.get('path') ??
        this.longName ??
        (prefix ? `${prefix}/${shortName}` : shortName),
      type: type === '\0' || type === '7' ? '0' : type,
      linkName: this.pax.get('linkpath') ?? this.longLink ?? text(block.subarray(157, 257)),
      size: 0,
    };
    const stored = this.pax.has('size') ? Number(this.pax.get('size')) : size;
    const sparse = this.pax.get('GNU.sparse.realsize') ?? this.pax.get('GNU.sparse.size');
    entry.size = sparse === undefined ? stored : Math.max(stored, Number(sparse));
    if (!Number.isFinite(entry.size)) throw new TarFormatError(`bad size for '${entry.name}'`);
    this.pax = new Map();
    this.longName = undefined;
    this.longLink = undefined;
    // Links, devices, folders and FIFOs carry no data; anything else (a pax hard link may) does.
    const dataBytes = NO_DATA_TYPES.has(entry.type) ? 0 : stored;
    this.state =
      dataBytes > 0 ? { kind: 'skip', remaining: Math.ceil(dataBytes / BLOCK) * BLOCK } : { kind: 'header' };
    return entry;
  }

  private finishExtension(state: Extract<State, { kind: 'extension' }>): void {
    const data = Buffer.concat(state.chunks).subarray(0, state.size);
    if (state.type === 'x') for (const [key, value] of paxRecords(data)) this.pax.set(key, value);
    else if (state.type === 'L') this.longName = text(data);
    else if (state.type === 'K') this.longLink = text(data);
    this.state = { kind: 'header' };
  }
}
