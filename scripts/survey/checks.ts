/**
 * Reads a survey result back with a tool that is not the engine that wrote it: Poppler for PDF,
 * ImageMagick's identify for WebP and GIF (ffmpeg 5.1 cannot decode an animated WebP: it reported
 * a good one as 0 pixels wide), ffprobe for other pictures, sound and video, fc-scan for fonts, 7-Zip for archives, file(1) for office
 * and e-book containers, PyYAML and JSON.parse for data, and a UTF-8 decode for text (no U+FFFD).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Verdict {
  ok: boolean;
  detail: string;
}

async function tool(command: string, args: string[]): Promise<string> {
  const { stdout } = await run(command, args, { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
  return stdout;
}

async function pdf(path: string): Promise<Verdict> {
  const pages = /Pages:\s+(\d+)/.exec(await tool('pdfinfo', [path]))?.[1];
  return { ok: Number(pages) > 0, detail: `${pages ?? 0} pages` };
}

/** Streams of the wanted kind, with a size (pictures) or a duration (sound and video). */
async function media(path: string, kind: 'video' | 'audio', timed: boolean): Promise<Verdict> {
  const probe = JSON.parse(
    await tool('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', path]),
  ) as { streams?: { codec_type?: string; width?: number }[]; format?: { duration?: string } };
  const stream = probe.streams?.find((s) => s.codec_type === kind);
  const seconds = Number(probe.format?.duration ?? 0);
  const ok = stream !== undefined && (kind === 'audio' || (stream.width ?? 0) > 0) && (!timed || seconds > 0);
  return {
    ok,
    detail: stream ? `${kind} ${stream.width ?? ''} ${timed ? `${seconds}s` : ''}`.trim() : `no ${kind}`,
  };
}

async function text(path: string): Promise<{ verdict: Verdict; content: string }> {
  const bytes = await readFile(path);
  const content = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const replaced = content.includes('\uFFFD');
  const ok = content.trim().length > 0 && !replaced;
  return {
    verdict: { ok, detail: replaced ? 'U+FFFD in the text' : `${content.length} characters` },
    content,
  };
}

/** identify's size of the first frame, and how many frames there are. */
async function frames(path: string): Promise<Verdict> {
  const lines = (await tool('identify', ['-format', '%w %h\n', path])).trim().split('\n');
  const [width = 0, height = 0] = (lines[0] ?? '').split(' ').map(Number);
  return { ok: width > 0 && height > 0, detail: `${width}x${height}, ${lines.length} frames` };
}

async function mime(path: string, expected: RegExp): Promise<Verdict> {
  const type = (await tool('file', ['--mime-type', '-b', path])).trim();
  return { ok: expected.test(type), detail: type };
}

async function archive(path: string): Promise<Verdict> {
  const listing = await tool('7zz', ['l', '-ba', path]);
  const entries = listing.split('\n').filter((line) => line.trim()).length;
  return { ok: entries > 0, detail: `${entries} entries` };
}

async function yaml(path: string): Promise<Verdict> {
  // Debian's python3 has PyYAML (python3-yaml); a pyenv python on PATH may not.
  await tool('/usr/bin/python3', ['-c', 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))', path]);
  return { ok: true, detail: 'PyYAML read it' };
}

export async function verify(path: string, format: string): Promise<Verdict> {
  try {
    switch (format) {
      case 'pdf':
        return await pdf(path);
      case 'png':
      case 'jpg':
        return await media(path, 'video', false);
      case 'webp':
      case 'gif':
        return await frames(path);
      case 'mp4':
      case 'webm':
        return await media(path, 'video', true);
      case 'mp3':
      case 'ogg':
      case 'wav':
        return await media(path, 'audio', true);
      case 'ttf':
      case 'woff2': {
        const family = /family: "([^"]+)"/.exec(await tool('fc-scan', [path]))?.[1];
        return { ok: family !== undefined, detail: family ?? 'fc-scan found no font' };
      }
      case 'zip':
      case 'tgz':
        return await archive(path);
      case 'docx':
        return await mime(path, /wordprocessingml/);
      case 'xlsx':
        return await mime(path, /spreadsheetml/);
      case 'pptx':
        return await mime(path, /presentationml/);
      case 'odt':
        return await mime(path, /opendocument\.text/);
      case 'ods':
        return await mime(path, /opendocument\.spreadsheet/);
      case 'odp':
        return await mime(path, /opendocument\.presentation/);
      case 'mobi':
        return await mime(path, /mobipocket/);
      case 'json': {
        const { verdict, content } = await text(path);
        JSON.parse(content);
        return verdict;
      }
      case 'yaml':
        return await yaml(path);
      default:
        return (await text(path)).verdict;
    }
  } catch (error) {
    return {
      ok: false,
      detail: `check failed: ${error instanceof Error ? error.message.split('\n')[0] : error}`,
    };
  }
}
