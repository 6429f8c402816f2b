/**
 * `fileconv doctor` as a process with a fresh HOME: each row prints as soon as it and the rows
 * above it are checked (a held-back check holds back only the rows after it), and every row that
 * uses ffmpeg answers from the same lookup, whether ffmpeg is found or hidden.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FFMPEG_AVAILABLE, FFMPEG_INSTALL } from './converters/ffmpeg-helpers.js';
import { runCli } from './helpers/cli-process.js';
import { describeWithEngine } from './helpers/engines.js';
import { CLI_ARGS } from './helpers/serve-process.js';
import { tempDir } from './helpers/temp.js';

const CLI = CLI_ARGS.map((arg) => (arg === 'tsx' ? import.meta.resolve('tsx') : arg));

/** Resolves with what stdout holds once it has a line starting with `name` (a row of that engine). */
function rowPrinted(child: ChildProcess, name: string, seen: { stdout: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (new RegExp(`^${name}\\s`, 'm').test(seen.stdout)) resolve(seen.stdout);
    };
    child.stdout?.on('data', check);
    child.once('close', () => reject(new Error(`the doctor ended without a ${name} row:\n${seen.stdout}`)));
  });
}

describe('fileconv doctor', () => {
  it('prints each row as soon as it is known: a held-back check holds back only the rows after it', async () => {
    const dir = await tempDir();
    const gate = join(dir, 'gate');
    // A soffice whose `--version` answers only once the test opens the gate (its own limit is 30 s).
    const soffice = join(dir, 'soffice');
    await writeFile(
      soffice,
      `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.05; done\necho 'LibreOffice 9.9.9.9 40(Build:2)'\n`,
    );
    await chmod(soffice, 0o755);
    const child = spawn(process.execPath, [...CLI, 'doctor'], {
      env: { ...process.env, HOME: await tempDir(), SOFFICE_PATH: soffice },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const seen = { stdout: '' };
    child.stdout.on('data', (chunk: Buffer) => {
      seen.stdout += chunk.toString();
    });
    const ended = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      const early = await rowPrinted(child, 'database', seen);
      // The LibreOffice check is still waiting on the gate, so the report is not done.
      expect(child.exitCode).toBeNull();
      expect(early).not.toMatch(/^libreoffice\s/m);
      expect(early).not.toMatch(/^Optional features:/m);
    } finally {
      await writeFile(gate, '');
    }
    await ended;
    expect(seen.stdout).toMatch(/^libreoffice\s+ok\s+\d+ conversions\s+LibreOffice 9\.9\.9\.9 /m);
    // Rows keep the order of the registrations on every run.
    const names = [...seen.stdout.matchAll(/^(\S+)\s+(?:ok|MISSING)\s/gm)].map((match) => match[1]);
    expect(names.slice(0, 3)).toEqual(['database', 'sharp', 'imagemagick']);
    expect(names.indexOf('libreoffice')).toBeLessThan(names.indexOf('calibre'));
  }, 180_000);
});

interface DoctorJson {
  converters: { name: string; ok: boolean; version?: string; reason?: string; install?: string }[];
  operations: { name: string; ok: boolean; reason?: string; install?: string }[];
}

async function doctorJson(env: Record<string, string>): Promise<DoctorJson> {
  const run = await runCli(['doctor', '--json'], { env: { HOME: await tempDir(), ...env } });
  return JSON.parse(run.stdout) as DoctorJson;
}

function ffmpegRows(report: DoctorJson) {
  const converter = (name: string) => report.converters.find((entry) => entry.name === name);
  return {
    media: converter('ffmpeg'),
    image: converter('ffmpeg-image'),
    subtitles: converter('subtitles'),
    operation: report.operations.find((entry) => entry.name === 'subtitles'),
  };
}

// Off PATH, ffmpeg is still found in /usr/bin by the one lookup; the media converter once used PATH alone.
describeWithEngine(
  'ffmpeg',
  FFMPEG_AVAILABLE && existsSync('/usr/bin/ffmpeg'),
  FFMPEG_INSTALL,
  'fileconv doctor on ffmpeg',
  () => {
    it('finds the same ffmpeg for every row that uses it, with ffmpeg off PATH too', async () => {
      const [onPath, offPath] = await Promise.all([doctorJson({}), doctorJson({ PATH: '/nonexistent' })]);
      for (const report of [onPath, offPath]) {
        const rows = ffmpegRows(report);
        expect(rows.media).toMatchObject({
          ok: true,
          version: expect.stringContaining('native, /usr/bin/ffmpeg'),
        });
        expect(rows.image).toMatchObject({ ok: true });
        expect(rows.subtitles).toMatchObject({ ok: true });
        expect(rows.operation).toMatchObject({ ok: true });
      }
    }, 180_000);

    it('says ffmpeg is missing in every row that uses it when it is hidden, naming the package', async () => {
      const hidden = join(await tempDir(), 'no-ffmpeg');
      const rows = ffmpegRows(await doctorJson({ FFMPEG_PATH: hidden }));
      const missing = { ok: false, install: expect.stringContaining(FFMPEG_INSTALL) };
      expect(rows.image).toMatchObject(missing);
      expect(rows.subtitles).toMatchObject(missing);
      expect(rows.operation).toMatchObject({ ...missing, reason: `FFMPEG_PATH=${hidden} is not executable` });
      // The media converter has a second engine: WebAssembly when @ffmpeg/core is installed, and
      // then it says the native one is missing and what installs it; otherwise it is missing too.
      if (rows.media?.ok) {
        expect(rows.media.version).toContain(`WebAssembly fallback: FFMPEG_PATH=${hidden} is not executable`);
        expect(rows.media.version).toContain(FFMPEG_INSTALL);
      } else {
        expect(rows.media).toMatchObject(missing);
      }
    }, 180_000);
  },
);

describe("fileconv doctor: a converter whose steps' own packages are missing", () => {
  it('counts the steps it can plan and names only the packages missing (data: json -> yaml needs yaml)', async () => {
    const { edgeCoverage } = await import('../bin/commands/doctor.js');
    const { DATA_EDGES } = await import('../src/converters/data/data-edges.js');
    // As if yaml were not installed: the engine plans no step that loads it (conversion-context.ts).
    const withoutYaml = (packages: readonly string[] | undefined) =>
      (packages ?? []).filter((pkg) => pkg === 'yaml');
    const coverage = edgeCoverage(DATA_EDGES, withoutYaml);
    const needingYaml = DATA_EDGES.filter((edge) => edge.packages?.includes('yaml')).length;
    expect(needingYaml).toBeGreaterThan(0);
    expect(coverage).toEqual({
      usable: DATA_EDGES.length - needingYaml,
      total: DATA_EDGES.length,
      absent: ['yaml'],
    });
    // Everything installed, as on this machine: the whole converter, nothing to name.
    expect(edgeCoverage(DATA_EDGES)).toEqual({
      usable: DATA_EDGES.length,
      total: DATA_EDGES.length,
      absent: [],
    });
  });
});
