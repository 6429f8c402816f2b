/**
 * Regenerates fixtures/bad/encrypted.{xlsx,docx}: the office fixtures encrypted with the password
 * "secret" (MS-OFFCRYPTO agile encryption, as Office writes it). officecrypto-tool is not a
 * dependency of fileconv; install it in a scratch directory and run this from there:
 *
 *   mkdir /tmp/enc && cd /tmp/enc && npm install officecrypto-tool@0.0.19
 *   cp /path/to/fileconv/scripts/make-encrypted-fixtures.mjs . && node make-encrypted-fixtures.mjs /path/to/fileconv
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import officeCrypto from 'officecrypto-tool';

const root = process.argv[2] ?? '.';
for (const ext of ['xlsx', 'docx']) {
  const plain = readFileSync(join(root, 'fixtures', `fixture.${ext}`));
  const encrypted = await officeCrypto.encrypt(plain, { password: 'secret' });
  writeFileSync(join(root, 'fixtures', 'bad', `encrypted.${ext}`), encrypted);
}
