/**
 * Archives through the HTTP service (Flow A): a .zip upload, which no format used to claim
 * (UNSUPPORTED_FORMAT), now repacks into a tar.gz that GNU tar reads back; a zip bomb uploaded
 * the same way fails its job with INPUT_LIMIT_EXCEEDED and no server error.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { createArchiveConverter } from '../../src/converters/archive/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tarBytes } from '../helpers/tar.js';
import { call, fixture, pollJob, put, startServer, type TestServer } from '../http/harness.js';
import { ARCHIVE_ENGINE, ARCHIVE_INSTALL } from './archive-helpers.js';

const run = promisify(execFile);

async function job(server: TestServer, bytes: Buffer, fileName: string, source: string, target: string) {
  const granted = await call(server, 'POST', '/api/files/get-upload-url', {
    json: { fileName, fileSize: bytes.length, contentType: 'application/octet-stream' },
  });
  expect(granted.status, granted.text).toBe(200);
  expect((await put(granted.body.uploadUrl, bytes, 'application/octet-stream')).status).toBe(200);
  const created = await call(server, 'POST', '/api/jobs/create', {
    json: {
      fileKey: granted.body.fileKey,
      sourceFormat: source,
      targetFormat: target,
      fileSize: bytes.length,
    },
  });
  expect(created.status, created.text).toBe(200);
  return pollJob(server, created.body.jobId as string);
}

describeWithEngine('bsdtar', ARCHIVE_ENGINE, ARCHIVE_INSTALL, 'archives over HTTP', () => {
  it('repacks an uploaded .zip into a .tar.gz', async () => {
    const server = await startServer({ engine: { converters: [createArchiveConverter()] } });
    const done = await job(server, await fixture('fixture.zip'), 'photos.zip', 'zip', 'tar.gz');
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.targetFormat).toBe('tgz');
    const download = await fetch(done.downloadUrl);
    expect(download.headers.get('content-type')).toBe('application/gzip');
    const dir = await mkdtemp(join(tmpdir(), 'fileconv-archive-http-'));
    try {
      const path = join(dir, 'result.tgz');
      await writeFile(path, Buffer.from(await download.arrayBuffer()));
      const { stdout } = await run('tar', ['-tzf', path]);
      expect(stdout).toContain('archive/docs/readme.txt');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(await server.tempLeftovers()).toEqual([]);
  });

  it('fails the job of an uploaded bomb with INPUT_LIMIT_EXCEEDED', async () => {
    const server = await startServer({ engine: { converters: [createArchiveConverter()] } });
    const bomb = gzipSync(tarBytes([{ name: 'zeros', data: Buffer.alloc(32 * 1024 * 1024) }]), { level: 9 });
    const failed = await job(server, bomb, 'bomb.tar.gz', 'tgz', 'zip');
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'INPUT_LIMIT_EXCEEDED' });
    expect(await server.tempLeftovers()).toEqual([]);
  });
});
