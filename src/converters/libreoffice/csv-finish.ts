/**
 * CSV from LibreOffice made the same as the spreadsheet converter's (exceljs.ts, text-sinks.ts):
 * records end in CRLF as RFC 4180 and Excel have it (LibreOffice ends them in the platform's LF),
 * and an optional UTF-8 byte-order mark, which its CSV filter has no working token for. Line
 * breaks inside a quoted field stay as the cell holds them. One streaming pass.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** LF -> CRLF between records; a quote toggles 'inside a field' (a doubled quote toggles twice). */
function recordEndsToCrlf(bom: boolean): Transform {
  let quoted = false;
  let previous = -1;
  let first = true;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const out: Buffer[] = first && bom ? [BOM] : [];
      first = false;
      let start = 0;
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i];
        if (byte === QUOTE) quoted = !quoted;
        else if (byte === LF && !quoted && previous !== CR) {
          out.push(chunk.subarray(start, i), Buffer.from([CR]));
          start = i;
        }
        previous = byte ?? -1;
      }
      out.push(chunk.subarray(start));
      done(null, Buffer.concat(out));
    },
    flush(done) {
      done(null, first && bom ? BOM : undefined);
    },
  });
}

/** Writes LibreOffice's CSV at `from` to `to` with CRLF record ends and, if asked, a byte-order mark. */
export async function finishCsv(from: string, to: string, options: { bom: boolean }): Promise<void> {
  await pipeline(createReadStream(from), recordEndsToCrlf(options.bom), createWriteStream(to));
}
