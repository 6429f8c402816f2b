import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM_EDGES } from '../../src/converters/chromium/chromium-edges.js';
import { locateChromium } from '../../src/converters/chromium/chromium-locate.js';
import { CHROMIUM_INSTALL, createChromiumConverter } from '../../src/converters/chromium/index.js';
import { createLibreOfficeConverter } from '../../src/converters/libreoffice/index.js';
import { createTextConverter } from '../../src/converters/text/index.js';
import { ConversionGraph } from '../../src/core/graph/index.js';
import { createEngine } from '../../src/index.js';
import { describeFormats } from '../../src/service/formats-view.js';
import { describeWithEngine } from '../helpers/engines.js';
import { dejaVuFace, expectSize, pdfInfo, pdfText, run } from './chromium-helpers.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const CHROMIUM = await locateChromium(undefined);
const AVAILABLE = typeof CHROMIUM === 'string';

const FONT = dejaVuFace('DejaVuSansMono-BoldOblique.ttf').toString('base64');

/** Grid, flexbox and a font only reachable as a data: URI (no fallback has its name or its style). */
const MODERN_PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><style>
@font-face { font-family: 'FileconvTestFace'; src: url(data:font/ttf;base64,${FONT}) format('truetype'); }
body { margin: 0; }
.grid { display: grid; grid-template-columns: 1fr 1fr 1fr; gap: 8px; }
.flex { display: flex; justify-content: space-between; }
.face { font-family: 'FileconvTestFace'; font-size: 20px; }
</style></head><body>
<div class="grid"><div>Grid cell alpha</div><div>Grid cell beta</div><div>Grid cell gamma</div></div>
<div class="flex"><span>Flex left</span><span>Flex right</span></div>
<p class="face">Embedded face text</p>
</body></html>`;

it('declares its edges, and plans html -> pdf through Chromium where LibreOffice could too', () => {
  expect(createChromiumConverter().edges).toEqual(CHROMIUM_EDGES);
  const graph = ConversionGraph.fromConverters([createLibreOfficeConverter(), createChromiumConverter()]);
  expect(graph.findPath('html', 'pdf')?.steps.map((step) => step.converter)).toEqual(['chromium']);
  // Markdown stays with the text converter, which needs no browser; Chromium is its fallback.
  const withText = ConversionGraph.fromConverters([createTextConverter(), createChromiumConverter()]);
  expect(withText.findPath('md', 'pdf')?.steps.map((step) => step.converter)).toEqual(['text']);
  const alone = ConversionGraph.fromConverters([createChromiumConverter()]);
  expect(alone.findPath('md', 'pdf')?.steps.map((step) => step.converter)).toEqual(['chromium']);
});

it('refuses bad factory options, naming them', () => {
  expect(() => createChromiumConverter({ concurrency: 0 })).toThrow(/concurrency/);
  expect(() => createChromiumConverter({ args: ['no-dashes'] })).toThrow(/args/);
});

it('is unavailable, with both install lines, where the browser is missing', async () => {
  const converter = withOptionsParsed(createChromiumConverter({ executablePath: '/nonexistent/chromium' }));
  const availability = await converter.available();
  expect(availability).toMatchObject({ ok: false, install: CHROMIUM_INSTALL });
  expect(availability.reason).toContain('/nonexistent/chromium');
  expect(CHROMIUM_INSTALL).toContain('apt-get install chromium');
  expect(CHROMIUM_INSTALL).toContain('npm install playwright-core');
  const ws = await workspace();
  await expectCode(converter.convert(await htmlContext(ws, '<p>x</p>', 'pdf')), 'ENGINE_UNAVAILABLE');
});

async function htmlContext(ws: Workspace, html: string, to: string, options: Record<string, unknown> = {}) {
  const inputPath = join(ws.inputs, `page-${Math.random().toString(36).slice(2)}.html`);
  await writeFile(inputPath, html);
  return context(ws, 'html', to, { inputPath, options, outputPath: join(ws.outputs, `out.${to}`) });
}

/** pids alive now among `pids`. */
function alive(pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
}

/** `pid` and all its descendants, from `pgrep -P`. */
async function processTree(pid: number): Promise<number[]> {
  const children = await run('pgrep', ['-P', String(pid)]).then(
    ({ stdout }) => stdout.split('\n').filter(Boolean).map(Number),
    () => [],
  );
  return [pid, ...(await Promise.all(children.map(processTree))).flat()];
}

describeWithEngine('chromium', AVAILABLE, CHROMIUM_INSTALL, 'chromium converter', () => {
  const blocked: string[] = [];
  const launched: number[] = [];
  const converter = withOptionsParsed(
    createChromiumConverter({
      onBlocked: (what) => blocked.push(what),
      onLaunch: (pid) => launched.push(pid),
    }),
  );
  let listener: Server;
  let connections = 0;
  let origin = '';

  beforeAll(async () => {
    listener = createServer((_, response) => response.end('secret'));
    listener.on('connection', () => connections++);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await converter.close();
    await new Promise((resolve) => listener.close(resolve));
  });

  it('is available, with its version', async () => {
    expect(await converter.available()).toMatchObject({ ok: true, version: expect.stringMatching(/Chrom/) });
  });

  it('prints grid, flexbox and a data: web font to an A4 PDF, the font embedded', async () => {
    const ws = await workspace();
    const ctx = await htmlContext(ws, MODERN_PAGE, 'pdf');
    await converter.convert(ctx);
    const info = await pdfInfo(ctx.outputPath);
    expect(info.pages).toBe(1);
    expectSize(info.size, [595.28, 841.89]);
    const text = await pdfText(ctx.outputPath);
    // Grid cells side by side on one line, flex items on one line.
    expect(text).toMatch(/Grid cell alpha\s+Grid cell beta\s+Grid cell gamma/);
    expect(text).toMatch(/Flex left\s+Flex right/);
    expect(text).toContain('Embedded face text');
    const fonts = (await run('pdffonts', [ctx.outputPath])).stdout;
    // Subset-prefixed name, then type and encoding, then emb(edded) yes.
    expect(fonts).toMatch(/\+DejaVuSansMono-BoldOblique\s.*\sIdentity-H\s+yes/);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('prints Letter and custom sizes, landscape swapping the sides', async () => {
    const ws = await workspace();
    const size = async (options: Record<string, unknown>) => {
      const ctx = await htmlContext(ws, '<p>Size</p>', 'pdf', options);
      await converter.convert(ctx);
      return (await pdfInfo(ctx.outputPath)).size;
    };
    expectSize(await size({ paper: 'Letter' }), [612, 792]);
    expectSize(await size({ paper: 'Letter', landscape: true }), [792, 612]);
    expectSize(await size({ paper: 'A4', landscape: true }), [841.89, 595.28]);
    expectSize(await size({ width: '100mm', height: '50mm' }), [283.46, 141.73]);
  });

  it('puts page numbers in the footer of a two-page document and keeps only the pages asked for', async () => {
    const ws = await workspace();
    const html = '<p>First page</p><p style="break-before: page">Second page</p>';
    const footer =
      '<div style="font-size: 10px; width: 100%; text-align: center">Page <span class="pageNumber"></span> / <span class="totalPages"></span></div>';
    const options = { footerTemplate: footer, margin: { top: '20mm', bottom: '20mm' } };
    const ctx = await htmlContext(ws, html, 'pdf', options);
    await converter.convert(ctx);
    expect((await pdfInfo(ctx.outputPath)).pages).toBe(2);
    const text = await pdfText(ctx.outputPath);
    expect(text).toContain('Page 1 / 2');
    expect(text).toContain('Page 2 / 2');
    const second = await htmlContext(ws, html, 'pdf', { pageRanges: '2' });
    await converter.convert(second);
    expect((await pdfInfo(second.outputPath)).pages).toBe(1);
    expect(await pdfText(second.outputPath)).toContain('Second page');
  });

  it.each([
    ['png', 'png'],
    ['jpg', 'jpeg'],
    ['webp', 'webp'],
  ])('takes a full-page %s screenshot: viewport width, content height', async (to, format) => {
    const ws = await workspace();
    const html = '<body style="margin: 0"><div style="height: 1500px; background: #08f">Tall</div></body>';
    const ctx = await htmlContext(ws, html, to);
    await converter.convert(ctx);
    const meta = await sharp(await readFile(ctx.outputPath)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual([format, 1280, 1500]);
    const viewport = await htmlContext(ws, html, to, { fullPage: false, width: 800, height: 600 });
    await converter.convert(viewport);
    const small = await sharp(await readFile(viewport.outputPath)).metadata();
    expect([small.width, small.height]).toEqual([800, 600]);
  });

  it('converts Markdown to PDF', async () => {
    const ws = await workspace();
    const inputPath = join(ws.inputs, 'doc.md');
    await writeFile(inputPath, '# Chromium title\n\n| a | b |\n|---|---|\n| cell one | cell two |\n');
    const ctx = context(ws, 'md', 'pdf', { inputPath });
    await converter.convert(ctx);
    const text = await pdfText(ctx.outputPath);
    expect(text).toContain('Chromium title');
    expect(text).toMatch(/cell one\s+cell two/);
  });

  it('refuses loopback and file: resources, nothing reaches the listener, and converts the rest', async () => {
    const ws = await workspace();
    blocked.length = 0;
    const html = `<p>Still here</p>
<img src="${origin}/image.png">
<link rel="stylesheet" href="file:///etc/passwd">
<iframe src="${origin}/frame"></iframe>
<iframe src="file:///etc/passwd"></iframe>`;
    const ctx = await htmlContext(ws, html, 'pdf');
    await converter.convert(ctx);
    expect(await pdfText(ctx.outputPath)).toContain('Still here');
    expect(await pdfText(ctx.outputPath)).not.toContain('root:');
    expect(connections).toBe(0);
    expect(blocked).toEqual(expect.arrayContaining([`${origin}/image.png`, `${origin}/frame`]));
  });

  it.each([
    ['a meta refresh', (url: string) => `<meta http-equiv="refresh" content="0; url=${url}"><p>Away</p>`, {}],
    [
      'a script',
      (url: string) => `<p>Away</p><script>location.href = '${url}'</script>`,
      { javascript: true },
    ],
  ])(
    'fails a page that navigates itself to loopback by %s as UNSAFE_INPUT, reading nothing',
    async (_, page, options) => {
      const ws = await workspace();
      const ctx = await htmlContext(ws, page(`${origin}/away`), 'pdf', options);
      const error = await expectCode(converter.convert(ctx), 'UNSAFE_INPUT');
      expect(error.message).toContain(`${origin}/away`);
      expect(connections).toBe(0);
      await expectNoLeftovers(ws);
    },
  );

  it('keeps a page that navigates itself to file: on its own document (Chromium refuses file: from the web)', async () => {
    const ws = await workspace();
    const ctx = await htmlContext(
      ws,
      '<meta http-equiv="refresh" content="0; url=file:///etc/passwd"><p>Stays</p>',
      'pdf',
    );
    await converter.convert(ctx);
    const text = await pdfText(ctx.outputPath);
    expect(text).toContain('Stays');
    expect(text).not.toContain('root:');
  });

  it('runs no script by default, and runs them when asked to', async () => {
    const ws = await workspace();
    const html = '<p>Static</p><script>document.body.append("Script ran")</script>';
    const off = await htmlContext(ws, html, 'pdf');
    await converter.convert(off);
    expect(await pdfText(off.outputPath)).not.toContain('Script ran');
    const on = await htmlContext(ws, html, 'pdf', { javascript: true });
    await converter.convert(on);
    expect(await pdfText(on.outputPath)).toContain('Script ran');
  });

  it('gives every job a context of its own: what a page stores, the next job does not see', async () => {
    const ws = await workspace();
    // Jobs in a row with the same options: from the second on, each gets the tab the pool opened
    // ahead while the one before rendered.
    const html = `<p id="seen"></p><script>
      const before = [localStorage.getItem('job'), sessionStorage.getItem('job'), document.cookie].join('|');
      document.getElementById('seen').textContent = 'Seen before: [' + before + ']';
      localStorage.setItem('job', 'stored'); sessionStorage.setItem('job', 'stored'); document.cookie = 'job=stored';
    </script>`;
    for (let job = 0; job < 3; job++) {
      const ctx = await htmlContext(ws, html, 'pdf', { javascript: true });
      await converter.convert(ctx);
      expect(await pdfText(ctx.outputPath)).toContain('Seen before: [||]');
    }
  });

  it('keeps scripts from reaching out: fetch, WebSocket and popups are refused', async () => {
    const ws = await workspace();
    blocked.length = 0;
    const html = `<p id="out">Scripted</p><script>
fetch('${origin}/fetch').catch(() => {});
try { new WebSocket('${origin.replace('http', 'ws')}/socket'); } catch {}
window.open('${origin}/popup');
const image = new Image(); image.src = '${origin}/script-image';
// Printed once the popup has had time to open (and be closed).
setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id="done">Done</p>'), 500);
</script>`;
    const ctx = await htmlContext(ws, html, 'pdf', { javascript: true, waitFor: '#done' });
    await converter.convert(ctx);
    expect(await pdfText(ctx.outputPath)).toMatch(/Scripted[\s\S]*Done/);
    expect(connections).toBe(0);
    expect(blocked).toEqual(
      expect.arrayContaining([
        `${origin}/fetch`,
        `${origin}/script-image`,
        `${origin.replace('http', 'ws')}/socket`,
      ]),
    );
    expect(
      blocked.some((what) => what.startsWith('popup')),
      blocked.join(' '),
    ).toBe(true);
  });

  it('stops an endless script at the timeout, and the same browser converts the next page', async () => {
    const ws = await workspace();
    const pid = converter.stats()?.pid;
    const started = Date.now();
    const loop = await htmlContext(ws, '<script>while (true) {}</script>', 'pdf', {
      javascript: true,
      timeoutSeconds: 1,
    });
    await expectCode(converter.convert(loop), 'CONVERSION_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(10_000);
    await expectNoLeftovers(ws);
    const next = await htmlContext(ws, '<p>After the loop</p>', 'pdf');
    await converter.convert(next);
    expect(await pdfText(next.outputPath)).toContain('After the loop');
    expect(converter.stats()?.pid).toBe(pid);
  });

  it('fails a page that allocates without end as INPUT_LIMIT_EXCEEDED, and converts the next', async () => {
    const ws = await workspace();
    const hog = await htmlContext(
      ws,
      '<script>const all = []; for (;;) all.push(new Array(1e6).fill(Math.random()));</script>',
      'pdf',
      { javascript: true, timeoutSeconds: 20 },
    );
    await expectCode(converter.convert(hog), 'INPUT_LIMIT_EXCEEDED');
    const next = await htmlContext(ws, '<p>After the hog</p>', 'pdf');
    await converter.convert(next);
    expect(await pdfText(next.outputPath)).toContain('After the hog');
  });

  it('answers an abort with CANCELED', async () => {
    const ws = await workspace();
    const controller = new AbortController();
    const ctx = await htmlContext(ws, '<script>while (true) {}</script>', 'pdf', { javascript: true });
    const converting = converter.convert({ ...ctx, signal: controller.signal });
    setTimeout(() => controller.abort(), 500);
    await expectCode(converting, 'CANCELED');
  });

  it('refuses inputs over its size cap, and bad options', async () => {
    const ws = await workspace();
    const small = withOptionsParsed(createChromiumConverter({ maxInputBytes: 10 }));
    await expectCode(
      small.convert(await htmlContext(ws, '<p>more than ten bytes</p>', 'pdf')),
      'INPUT_LIMIT_EXCEEDED',
    );
    await small.close();
    const both = await htmlContext(ws, '<p>x</p>', 'pdf', { paper: 'A4', width: '10cm', height: '10cm' });
    await expectCode(converter.convert(both), 'INVALID_OPTIONS');
    await expectCode(
      converter.convert(await htmlContext(ws, '<p>x</p>', 'png', { paper: 'A4' })),
      'INVALID_OPTIONS',
    );
    await expectCode(
      converter.convert(await htmlContext(ws, '<p>x</p>', 'pdf', { scale: 3 })),
      'INVALID_OPTIONS',
    );
  });

  it('renders at most `concurrency` pages at once, the others queued', async () => {
    const ws = await workspace();
    const one = withOptionsParsed(createChromiumConverter({ concurrency: 1 }));
    const loop = { javascript: true, timeoutSeconds: 1 };
    const jobs = await Promise.all(
      [0, 1].map(() => htmlContext(ws, '<script>for (;;) {}</script>', 'pdf', loop)),
    );
    const running = jobs.map((job) => expectCode(one.convert(job), 'CONVERSION_TIMEOUT'));
    await expect.poll(() => one.stats(), { timeout: 10_000 }).toMatchObject({ busy: 1, queued: 1 });
    await Promise.all(running);
    expect(one.stats()).toMatchObject({ busy: 0, queued: 0, launched: 1 });
    await one.close();
  });

  it('replaces its browser after maxJobsPerBrowser jobs, and close() leaves no process', async () => {
    const ws = await workspace();
    const pids: number[] = [];
    const small = withOptionsParsed(
      createChromiumConverter({ maxJobsPerBrowser: 2, onLaunch: (pid) => pids.push(pid) }),
    );
    for (let job = 0; job < 3; job++) await small.convert(await htmlContext(ws, `<p>Job ${job}</p>`, 'pdf'));
    expect(small.stats()).toMatchObject({ launched: 2, recycled: 1, processes: 1 });
    const tree = await processTree(pids[1]!);
    expect(tree.length).toBeGreaterThan(1); // the browser and its helpers
    await small.close();
    await expect.poll(() => alive([...pids, ...tree]), { timeout: 10_000 }).toEqual([]);
  });

  it('serves html -> pdf through Chromium in an engine that also has LibreOffice, and says so', async () => {
    const ws = await workspace();
    const engine = createEngine({
      converters: [createLibreOfficeConverter(), createChromiumConverter()],
      tempDir: ws.temp,
    });
    const plan = await engine.plan('html', 'pdf');
    expect(plan.steps.map((step) => step.converter)).toEqual(['chromium']);
    // GET /api/formats tells which engine makes it.
    const { formats } = await describeFormats(engine);
    const html = formats.find((format) => format.name === 'html');
    expect(html?.targets.find((target) => target.format === 'pdf')).toMatchObject({
      path: ['html', 'pdf'],
      converters: ['chromium'],
    });
    await engine.close();
  });
});
