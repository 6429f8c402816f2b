/**
 * Archive formats (zip, tar, tar.gz, tar.bz2, tar.xz, 7z, rar). Conventions: registry.ts.
 *
 * A compressed tar is named by its one-word extension ('tgz', 'tbz2', 'txz'): names are
 * extension-like words, and what a result is called comes from `extensions[0]`. The two-part
 * names people actually type ('backup.tar.gz') are extensions and aliases too: lookup.ts tries a
 * file name's last two parts before its last one. A lone '.gz', '.bz2' or '.xz' is not claimed: a
 * compressed single file (an .svg.gz, a .log.xz) is not an archive.
 */
import type { FormatDefinition } from './types.js';

export const ARCHIVE_FORMATS: readonly FormatDefinition[] = [
  {
    name: 'zip',
    family: 'archive',
    label: 'ZIP archive',
    aliases: [],
    extensions: ['zip'],
    // application/x-zip-compressed is what Windows browsers send for a .zip upload.
    mimeTypes: ['application/zip', 'application/x-zip-compressed', 'application/x-zip'],
    detectable: true,
  },
  {
    name: 'tar',
    family: 'archive',
    label: 'Tar archive',
    aliases: [],
    extensions: ['tar'],
    mimeTypes: ['application/x-tar', 'application/x-gtar'],
    detectable: true,
  },
  {
    name: 'tgz',
    family: 'archive',
    label: 'Tar archive, gzip-compressed',
    aliases: ['tar.gz', 'targz'],
    extensions: ['tgz', 'tar.gz'],
    // application/gzip is also any gzipped file: detection tells a tar inside from anything else.
    mimeTypes: [
      'application/gzip',
      'application/x-gzip',
      'application/x-compressed-tar',
      'application/x-tgz',
    ],
    detectable: true,
  },
  {
    // Detected as the bzip2 wrapper only ('bz2'): the tar inside is behind a Burrows-Wheeler block
    // that cannot be decoded from a head; the converter's listing proves it is a tar.
    name: 'tbz2',
    family: 'archive',
    label: 'Tar archive, bzip2-compressed',
    aliases: ['tar.bz2', 'tbz', 'tb2'],
    extensions: ['tbz2', 'tar.bz2', 'tbz', 'tb2'],
    mimeTypes: ['application/x-bzip2', 'application/x-bzip-compressed-tar', 'application/x-bzip'],
    detectable: true,
  },
  {
    // Detected as the xz wrapper only ('xz'), as tbz2: decoding LZMA2 for a head is not worth it.
    name: 'txz',
    family: 'archive',
    label: 'Tar archive, xz-compressed',
    aliases: ['tar.xz'],
    extensions: ['txz', 'tar.xz'],
    mimeTypes: ['application/x-xz', 'application/x-xz-compressed-tar'],
    detectable: true,
  },
  {
    name: '7z',
    family: 'archive',
    label: '7-Zip archive',
    aliases: ['7zip'],
    extensions: ['7z'],
    mimeTypes: ['application/x-7z-compressed'],
    detectable: true,
  },
  {
    // Read only: RAR's compressor is proprietary, and libarchive (the engine) only reads it.
    name: 'rar',
    family: 'archive',
    label: 'RAR archive (read only)',
    aliases: [],
    extensions: ['rar'],
    mimeTypes: ['application/vnd.rar', 'application/x-rar-compressed', 'application/x-rar'],
    detectable: true,
  },
];
