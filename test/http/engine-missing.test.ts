/**
 * A conversion that exists but whose engine this server lacks: over HTTP too it is
 * ENGINE_UNAVAILABLE naming the engine and its install line, not UNSUPPORTED_CONVERSION (which
 * would tell the client the conversion does not exist at all).
 */
import { describe, expect, it } from 'vitest';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import type { Converter } from '../../src/core/ports/index.js';
import { copyConverter } from '../helpers/fake-converters.js';
import { call, expectError, fixture, startServer, uploadA } from './harness.js';

const uninstalledPdf: Converter = {
  ...copyConverter('pdf', [{ from: 'pdf', to: 'txt', cost: 1, lossy: true }]),
  available: async () => ({
    ok: false,
    reason: 'not installed: pdfjs-dist',
    install: 'npm install pdfjs-dist pdf-lib',
  }),
};

describe('POST /api/jobs/create for a conversion whose engine is missing', () => {
  it('is 500 ENGINE_UNAVAILABLE with the install line; no job is recorded', async () => {
    const server = await startServer({ engine: { converters: [createSharpConverter(), uninstalledPdf] } });
    const bytes = await fixture('fixture.pdf');
    const { fileKey } = await uploadA(server, bytes, 'doc.pdf', 'application/pdf');
    const response = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey, sourceFormat: 'pdf', targetFormat: 'txt', fileSize: bytes.length },
    });
    expectError(response, 500, 'ENGINE_UNAVAILABLE');
    expect(response.body.error).toMatchObject({
      message: expect.stringContaining('run `npm install pdfjs-dist pdf-lib`'),
      details: { converter: 'pdf', install: 'npm install pdfjs-dist pdf-lib' },
    });
    expect(await server.jobRecords()).toEqual([]);
    // The router reports it as the server's fault (a missing engine), which is this test's point.
    expect(server.serverErrors.map((error) => (error as { code?: string }).code)).toEqual([
      'ENGINE_UNAVAILABLE',
    ]);
    server.serverErrors.splice(0);
    // A conversion no converter declares is still UNSUPPORTED_CONVERSION.
    const unknown = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey, sourceFormat: 'pdf', targetFormat: 'mp3', fileSize: bytes.length },
    });
    expectError(unknown, 422, 'UNSUPPORTED_CONVERSION');
  });
});
