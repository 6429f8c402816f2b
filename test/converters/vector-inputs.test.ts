/**
 * Hostile and broken input for the print and vector converters. PostScript is a program, so
 * besides truncated files and files lying about their type there are programs that never end,
 * read /etc/passwd, write files, or ask for pages beyond any pixel budget. Each gets a stable 4xx
 * code (CONVERSION_TIMEOUT for the endless one), its Ghostscript process is gone, and nothing is
 * left behind: no output, no scratch file, no file written where the program asked.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import {
  createGhostscriptConverter,
  createPdftocairoConverter,
  createRsvgConverter,
  createSvgzConverter,
} from '../../src/converters/vector/index.js';
import { createEngine } from '../../src/index.js';
import { COMMAND_TOOLS } from '../../src/kit/command-tools.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';
import { GS, input, PDFTOCAIRO, pdfText, RSVG } from './vector-helpers.js';

/** Pids of live processes whose command line mentions `needle` (an input path unique to a test). */
async function processesMentioning(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(needle)) pids.push(Number(entry));
  }
  return pids;
}

const truncated = async (name: string, fraction: number) => {
  const bytes = await readFile(fixture(name));
  return bytes.subarray(0, Math.floor(bytes.length * fraction));
};

describeWithEngine('Ghostscript', GS, COMMAND_TOOLS.gs.install, 'ghostscript converter: bad input', () => {
  // Generous: a loaded CI machine must not turn a slow run into a timeout.
  const converter = withOptionsParsed(createGhostscriptConverter({ timeoutSeconds: 60 }));

  it.each([
    ['eps', 'pdf'],
    ['ps', 'pdf'],
    ['ps', 'png'],
  ])('a truncated %s -> %s is CORRUPT_INPUT', async (from, to) => {
    const ws = await workspace();
    const inputPath = await input(ws, `cut.${from}`, await truncated(`fixture.${from}`, 0.6));
    await expectCode(converter.convert(context(ws, from, to, { inputPath })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it('a truncated PDF -> eps is CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const inputPath = await input(ws, 'cut.pdf', await truncated('fixture.pdf', 0.3));
    await expectCode(converter.convert(context(ws, 'pdf', 'eps', { inputPath })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it('a PNG named .eps is CORRUPT_INPUT from the converter, CONTENT_MISMATCH from the engine', async () => {
    const ws = await workspace();
    const inputPath = await input(ws, 'photo.eps', await readFile(fixture('fixture.png')));
    await expectCode(converter.convert(context(ws, 'eps', 'pdf', { inputPath })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
    const engine = createEngine({ converters: [converter], tempDir: ws.temp });
    await expectCode(engine.convertFile(inputPath, join(ws.outputs, 'out.pdf')), 'CONTENT_MISMATCH');
    await engine.close();
    await expectNoLeftovers(ws);
  });

  it('an encrypted PDF -> eps is PASSWORD_PROTECTED', async () => {
    const ws = await workspace();
    const inputPath = fixture('../fixtures/bad/encrypted.pdf');
    await expectCode(converter.convert(context(ws, 'pdf', 'eps', { inputPath })), 'PASSWORD_PROTECTED');
    await expectNoLeftovers(ws);
  });

  it('a PostScript program that never ends is stopped at the timeout, its process killed', async () => {
    const ws = await workspace();
    const inputPath = await input(ws, 'endless.ps', '%!PS\n{ 1 pop } loop\n');
    const impatient = withOptionsParsed(createGhostscriptConverter({ timeoutSeconds: 2 }));
    await expectCode(impatient.convert(context(ws, 'ps', 'pdf', { inputPath })), 'CONVERSION_TIMEOUT');
    expect(await processesMentioning(inputPath)).toEqual([]);
    await expectNoLeftovers(ws);
  });

  it('an abort kills Ghostscript at once (CANCELED)', async () => {
    const ws = await workspace();
    const inputPath = await input(ws, 'endless-pages.ps', '%!PS\n{ showpage } loop\n');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const ctx = context(ws, 'ps', 'pdf', { inputPath, signal: controller.signal });
    await expectCode(converter.convert(ctx), 'CANCELED');
    expect(await processesMentioning(inputPath)).toEqual([]);
    await expectNoLeftovers(ws);
  });

  it('a program reading /etc/passwd is refused (UNSAFE_INPUT), nothing written', async () => {
    const ws = await workspace();
    const program = [
      '%!PS',
      '/Courier findfont 10 scalefont setfont',
      '/f (/etc/passwd) (r) file def',
      '72 700 moveto f 200 string readstring pop show showpage',
    ].join('\n');
    const inputPath = await input(ws, 'passwd.ps', program);
    for (const to of ['pdf', 'png']) {
      await expectCode(converter.convert(context(ws, 'ps', to, { inputPath })), 'UNSAFE_INPUT');
      await expectNoLeftovers(ws);
    }
  });

  it('a program that catches the refusal and carries on gets a page without the file', async () => {
    const ws = await workspace();
    const program = [
      '%!PS',
      '/Courier findfont 10 scalefont setfont 72 700 moveto',
      '{ (/etc/passwd) (r) file 200 string readstring pop } stopped { (refused) } if show showpage',
    ].join('\n');
    const inputPath = await input(ws, 'passwd-stopped.ps', program);
    const ctx = context(ws, 'ps', 'pdf', { inputPath });
    await converter.convert(ctx);
    const text = await pdfText(ctx.outputPath);
    expect(text).toContain('refused');
    expect(text).not.toMatch(/root:/);
  });

  it('a program writing files (the temp directory -dSAFER leaves open, or anywhere) is refused, and nothing appears', async () => {
    const ws = await workspace();
    const target = join(tmpdir(), `fileconv-vector-written-${process.pid}-${Date.now()}.txt`);
    const write = (path: string) => `/f (${path}) (w) file def f (written) writestring f closefile\n`;
    for (const path of [target, join(ws.inputs, 'beside-input.txt')]) {
      const inputPath = await input(ws, 'write.ps', `%!PS\n${write(path)}showpage\n`);
      await expectCode(converter.convert(context(ws, 'ps', 'pdf', { inputPath })), 'UNSAFE_INPUT');
      expect(existsSync(path)).toBe(false);
      await expectNoLeftovers(ws);
    }
    // A relative name lands in Ghostscript's private TMPDIR (its working folder), removed with it.
    const inputPath = await input(ws, 'write-here.ps', `%!PS\n${write('here.txt')}showpage\n`);
    const ctx = context(ws, 'ps', 'pdf', { inputPath });
    await converter.convert(ctx).catch(() => undefined);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('a program allocating without end is stopped at the memory cap (INPUT_LIMIT_EXCEEDED)', async () => {
    const ws = await workspace();
    const hungry = withOptionsParsed(createGhostscriptConverter({ timeoutSeconds: 30, maxMemoryMiB: 64 }));
    const program = '%!PS\n/a 60000 array def\n0 1 59999 { a exch 60000 string put } for\nshowpage\n';
    const inputPath = await input(ws, 'hungry.ps', program);
    await expectCode(hungry.convert(context(ws, 'ps', 'pdf', { inputPath })), 'INPUT_LIMIT_EXCEEDED');
    await expectNoLeftovers(ws);
  });

  it('a page too large to render at the asked dpi is INPUT_LIMIT_EXCEEDED before any pixel is drawn', async () => {
    const ws = await workspace();
    const inputPath = await input(
      ws,
      'huge-page.ps',
      '%!PS\n<< /PageSize [14000 14000] >> setpagedevice\n0 0 moveto 100 100 lineto stroke showpage\n',
    );
    const error = await expectCode(
      converter.convert(context(ws, 'ps', 'png', { inputPath })),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(error.message).toMatch(/28000x28000/);
    await expectNoLeftovers(ws);
  });

  it('a page size Ghostscript itself refuses is INPUT_LIMIT_EXCEEDED', async () => {
    const ws = await workspace();
    const inputPath = await input(
      ws,
      'absurd-page.ps',
      '%!PS\n<< /PageSize [1000000 1000000] >> setpagedevice\nshowpage\n',
    );
    await expectCode(converter.convert(context(ws, 'ps', 'pdf', { inputPath })), 'INPUT_LIMIT_EXCEEDED');
    await expectNoLeftovers(ws);
  });

  it("more pages than the plan's maxDocumentPages is INPUT_LIMIT_EXCEEDED naming the budget", async () => {
    const ws = await workspace();
    const inputPath = await input(ws, 'five.ps', '%!PS\n1 1 5 { pop showpage } for\n');
    const ctx = context(ws, 'ps', 'pdf', {
      inputPath,
      limits: { maxPixels: 100_000_000, maxDocumentPages: 2 },
    });
    const error = await expectCode(converter.convert(ctx), 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ budget: 'maxDocumentPages', limit: 2 });
    await expectNoLeftovers(ws);
  });

  it('a page that does not exist is INVALID_OPTIONS', async () => {
    const ws = await workspace();
    await expectCode(
      converter.convert(context(ws, 'ps', 'png', { options: { page: 3 } })),
      'INVALID_OPTIONS',
    );
    await expectCode(
      converter.convert(context(ws, 'pdf', 'eps', { options: { page: 2 } })),
      'INVALID_OPTIONS',
    );
    await expectNoLeftovers(ws);
  });
});

describeWithEngine(
  'librsvg',
  RSVG,
  COMMAND_TOOLS['rsvg-convert'].install,
  'rsvg converter: bad input',
  () => {
    const converter = withOptionsParsed(createRsvgConverter());

    it.each([
      ['an external image', '<image href="file:///etc/passwd" width="10" height="10"/>'],
      ['an external stylesheet', '<style>@import url(http://example.com/a.css);</style>'],
      ['a use of another file', '<use href="other.svg#shape"/>'],
    ])('an SVG with %s is UNSAFE_INPUT, as for the image converter', async (_what, element) => {
      const ws = await workspace();
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${element}</svg>`;
      const inputPath = await input(ws, 'bad.svg', svg);
      await expectCode(converter.convert(context(ws, 'svg', 'pdf', { inputPath })), 'UNSAFE_INPUT');
      await expectNoLeftovers(ws);
    });

    it('an SVG with an entity reading a file is UNSAFE_INPUT', async () => {
      const ws = await workspace();
      const svg =
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>' +
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&x;</text></svg>';
      const inputPath = await input(ws, 'xxe.svg', svg);
      await expectCode(converter.convert(context(ws, 'svg', 'pdf', { inputPath })), 'UNSAFE_INPUT');
      await expectNoLeftovers(ws);
    });

    it('a truncated SVG is CORRUPT_INPUT; an SVG claiming 100000 x 100000 is INPUT_LIMIT_EXCEEDED', async () => {
      const ws = await workspace();
      const cut = await input(ws, 'cut.svg', (await readFile(fixture('fixture.svg'))).subarray(0, 60));
      await expectCode(converter.convert(context(ws, 'svg', 'pdf', { inputPath: cut })), 'CORRUPT_INPUT');
      const huge = await input(
        ws,
        'huge.svg',
        '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="10" height="10"/></svg>',
      );
      await expectCode(
        converter.convert(context(ws, 'svg', 'pdf', { inputPath: huge })),
        'INPUT_LIMIT_EXCEEDED',
      );
      await expectNoLeftovers(ws);
    });
  },
);

describeWithEngine(
  'Poppler',
  PDFTOCAIRO,
  COMMAND_TOOLS.pdftocairo.install,
  'pdftocairo converter: bad input',
  () => {
    const converter = withOptionsParsed(createPdftocairoConverter());

    it('a truncated PDF is CORRUPT_INPUT, an encrypted one PASSWORD_PROTECTED, a missing page INVALID_OPTIONS', async () => {
      const ws = await workspace();
      const cut = await input(ws, 'cut.pdf', await truncated('fixture.pdf', 0.3));
      await expectCode(converter.convert(context(ws, 'pdf', 'svg', { inputPath: cut })), 'CORRUPT_INPUT');
      const encrypted = fixture('../fixtures/bad/encrypted.pdf');
      await expectCode(
        converter.convert(context(ws, 'pdf', 'svg', { inputPath: encrypted })),
        'PASSWORD_PROTECTED',
      );
      await expectCode(
        converter.convert(context(ws, 'pdf', 'svg', { options: { page: 9 } })),
        'INVALID_OPTIONS',
      );
      await expectNoLeftovers(ws);
    });
  },
);

describe('svgz converter: bad input', () => {
  const converter = withOptionsParsed(createSvgzConverter());

  it('a truncated svgz and a gzip of something else are CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const cut = await input(ws, 'cut.svgz', await truncated('fixture.svgz', 0.5));
    await expectCode(converter.convert(context(ws, 'svgz', 'svg', { inputPath: cut })), 'CORRUPT_INPUT');
    const text = await input(ws, 'text.svgz', gzipSync('just some text\n'));
    await expectCode(converter.convert(context(ws, 'svgz', 'svg', { inputPath: text })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it('a gzip bomb is refused once the SVG limit is passed, not inflated', async () => {
    const ws = await workspace();
    const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024, 0x20), { level: 9 });
    const inputPath = await input(ws, 'bomb.svgz', bomb);
    await expectCode(converter.convert(context(ws, 'svgz', 'svg', { inputPath })), 'INPUT_LIMIT_EXCEEDED');
    await expectNoLeftovers(ws);
  });

  it('through the engine, svgz -> png unpacks and then vets: an svgz hiding an external reference is UNSAFE_INPUT', async () => {
    const ws = await workspace();
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="http://example.com/x.png"/></svg>';
    const inputPath = await input(ws, 'sneaky.svgz', gzipSync(svg));
    const engine = createEngine({ converters: [converter, createSharpConverter()], tempDir: ws.temp });
    await expectCode(engine.convertFile(inputPath, join(ws.outputs, 'out.png')), 'UNSAFE_INPUT');
    await engine.close();
    await expectNoLeftovers(ws);
  });
});
