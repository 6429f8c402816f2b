/**
 * The image (`npm run image`) as an operator runs it: one container with its data on a volume
 * serves both flows with every engine (an image, a Word document through LibreOffice, an HTML
 * page through Chromium, a font through fontTools), runs as a non-root user, is healthy by its HEALTHCHECK, stops on
 * SIGTERM without being killed, and keeps its jobs, results and signing secret on the volume
 * across a restart. `doctor` in the image finds every engine.
 *
 * Run by `npm run test:image` (CI builds the image first); FILECONV_IMAGE names another image.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fontFamily, output, pdfPages } from '../helpers/content-readers.js';
import { fixture, tempDir } from '../helpers/temp.js';
import { flowA, flowB } from './client.js';
import {
  freePort,
  IMAGE,
  imageExists,
  podman,
  removeAll,
  runOnce,
  startContainer,
  volumeName,
  waitUntilReady,
} from './podman.js';

async function pdfFacts(bytes: Buffer): Promise<{ pages: number; text: string; producer: string }> {
  const path = join(await tempDir(), 'result.pdf');
  await writeFile(path, bytes);
  const info = await output('pdfinfo', [path]);
  return {
    pages: await pdfPages(path),
    text: await output('pdftotext', ['-q', path, '-']),
    producer: /^Producer:\s+(.*)$/m.exec(info)?.[1] ?? '',
  };
}

describe(`the image ${IMAGE}`, () => {
  let container: string;
  let api: string;
  const volume = volumeName();

  beforeAll(async () => {
    expect(await imageExists(), `${IMAGE} is not built: run npm run image`).toBe(true);
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    // The README's `podman run -d -p 3000:3000 -v fileconv-data:/data IMAGE`, with another host
    // port, and limits off: the Free plan's 5 conversions a day per address would end the test.
    container = await startContainer({ publish: port, volume, env: { FILECONV_LIMITS: 'false' } });
    await waitUntilReady(`${api}/api/ready`, container);
  }, 180_000);

  afterAll(removeAll, 60_000);

  it('finds every engine (doctor exits 0)', async () => {
    const doctor = await runOnce(['doctor']);
    expect(doctor.code, `${doctor.stdout}${doctor.stderr}`).toBe(0);
    expect(doctor.stdout).toMatch(/libreoffice/i);
    expect(doctor.stdout).toMatch(/chromium/i);
  }, 180_000);

  it('runs as a non-root user, and is healthy', async () => {
    expect(await podman(['exec', container, 'id', '-u'])).toBe('10001');
    const processes = (await podman(['top', container, 'user', 'args'])).split('\n').slice(1);
    expect(processes.join('\n')).toMatch(/fileconv\s+tini -- fileconv serve/);
    expect(processes.join('\n')).toMatch(/fileconv\s+node \S+fileconv serve/);
    for (const line of processes) expect(line).toMatch(/^fileconv\s/);
    await podman(['healthcheck', 'run', container]);
  });

  it('converts an image, a Word document and an HTML page through both flows', async () => {
    const webp = await flowB(api, fixture('fixture.png'), 'webp');
    expect((await sharp(webp).metadata()).format).toBe('webp');

    const word = await pdfFacts((await flowA(api, fixture('fixture.docx'), 'pdf')).bytes);
    expect(word.text).toContain('The quick brown fox jumps over the lazy dog.');
    expect(word.producer).toMatch(/LibreOffice/);

    const page = await pdfFacts(await flowB(api, fixture('fixture.html'), 'pdf'));
    expect(page.text).toContain('An HTML page with a list and a table.');
    expect(page.producer).toMatch(/Skia/); // Chromium's PDF backend

    // fontTools runs without the SymPy the image leaves out.
    const woff2 = join(await tempDir(), 'font.woff2');
    await writeFile(woff2, await flowB(api, fixture('fixture.ttf'), 'woff2'));
    const family = await fontFamily(fixture('fixture.ttf'));
    expect(family).not.toBe('');
    expect(await fontFamily(woff2)).toBe(family);
  }, 300_000);

  it('stops on SIGTERM and keeps jobs, results and the signing secret on its volume', async () => {
    const { jobId, bytes } = await flowA(api, fixture('fixture.png'), 'jpg');
    const before = await (await fetch(`${api}/api/jobs/${jobId}`)).json();
    await podman(['stop', '-t', '30', container], 60_000);
    // 137 would be the SIGKILL podman sends when the process ignores SIGTERM for 30 s.
    const code = Number(await podman(['inspect', '--format', '{{.State.ExitCode}}', container]));
    expect([0, 143]).toContain(code);

    await podman(['start', container]);
    await waitUntilReady(`${api}/api/ready`, container);
    const after = (await (await fetch(`${api}/api/jobs/${jobId}`)).json()) as typeof before & {
      downloadUrl: string;
    };
    expect(after).toEqual(before);
    // The download link signed before the restart still verifies: the secret lives in /data.
    const download = await fetch(after.downloadUrl);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  }, 180_000);
});
