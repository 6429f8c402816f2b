/**
 * OOXML packages whose content-types part is named in another case ('[content_types].xml'):
 * Word opens them (OPC part names compare case-insensitively), LibreOffice 7.4 does not ("could
 * not open the file"). The staged copy gets the name spelt as the standard has it. The new name
 * has as many bytes as the old one, so it is written over the old name in the local header and
 * in the central directory: no entry is recompressed and no offset moves.
 */
import { open } from 'node:fs/promises';

const CONTENT_TYPES = '[Content_Types].xml';
const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/** The end-of-central-directory record is 22 bytes plus a comment of up to 65535. */
const EOCD_SEARCH = 22 + 0xffff;

/** Where a misspelt content-types name sits: in the central directory and in the local header. */
interface Misnamed {
  central: number;
  local: number;
}

function misnamed(name: string): boolean {
  return name !== CONTENT_TYPES && name.toLowerCase() === CONTENT_TYPES.toLowerCase();
}

/** The positions of the name to respell, or undefined when the zip needs nothing (or is not one we can read). */
async function findMisnamed(path: string): Promise<Misnamed | undefined> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const tailLength = Math.min(size, EOCD_SEARCH);
    const tail = Buffer.alloc(tailLength);
    await file.read(tail, 0, tailLength, size - tailLength);
    let eocd = -1;
    for (let at = tailLength - 22; at >= 0; at--) {
      if (tail.readUInt32LE(at) === EOCD_SIGNATURE) {
        eocd = at;
        break;
      }
    }
    if (eocd < 0) return undefined;
    const directorySize = tail.readUInt32LE(eocd + 12);
    const directoryOffset = tail.readUInt32LE(eocd + 16);
    // Zip64 (0xffffffff) and nonsense offsets are left to LibreOffice as they are.
    if (directoryOffset + directorySize > size) return undefined;
    const directory = Buffer.alloc(directorySize);
    await file.read(directory, 0, directorySize, directoryOffset);
    for (let at = 0; at + 46 <= directory.length; ) {
      if (directory.readUInt32LE(at) !== CENTRAL_SIGNATURE) return undefined;
      const nameLength = directory.readUInt16LE(at + 28);
      const extra = directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
      const name = directory.toString('utf8', at + 46, at + 46 + nameLength);
      if (misnamed(name)) {
        const local = directory.readUInt32LE(at + 42);
        const header = Buffer.alloc(30 + nameLength);
        await file.read(header, 0, header.length, local);
        const sameName = header.toString('utf8', 30) === name;
        if (header.readUInt32LE(0) !== LOCAL_SIGNATURE || !sameName) return undefined;
        return { central: directoryOffset + at + 46, local: local + 30 };
      }
      at += 46 + nameLength + extra;
    }
    return undefined;
  } finally {
    await file.close();
  }
}

/** Whether one of a package's part names (as assertSafeZip lists them) is a misspelt content-types name. */
export function namesMisnamedContentTypes(names: readonly string[]): boolean {
  return names.some(misnamed);
}

/** Whether the OOXML package at `path` names its content-types part in another case. */
export async function hasMisnamedContentTypes(path: string): Promise<boolean> {
  return (await findMisnamed(path)) !== undefined;
}

/** Respells the content-types part's name in the zip at `path` (a private copy), in place. */
export async function respellContentTypes(path: string): Promise<void> {
  const where = await findMisnamed(path);
  if (!where) return;
  const file = await open(path, 'r+');
  try {
    const name = Buffer.from(CONTENT_TYPES, 'utf8');
    await file.write(name, 0, name.length, where.local);
    await file.write(name, 0, name.length, where.central);
  } finally {
    await file.close();
  }
}
