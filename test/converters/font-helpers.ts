/**
 * Reading fonts back independently of the converter: fontconfig's fc-scan (family, outline
 * format, character set) and fontTools run as a separate Python program (flavour, tables, glyph
 * count, one glyph's advance and outline). Neither goes through fileconv's code.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's interpreter, where python3-fonttools lives (a pyenv python3 on PATH lacks it). */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function runs(command: string, args: readonly string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const FONTTOOLS_AVAILABLE =
  runs(PYTHON, ['-c', 'import fontTools, brotli']) && runs('fc-scan', ['--version']);
export const FONTTOOLS_INSTALL = 'apt-get install python3-fonttools python3-brotli fontconfig';
export const WOFF2_DECOMPRESS_AVAILABLE = runs('sh', ['-c', 'command -v woff2_decompress']);

export interface FcScan {
  family: string;
  /** 'TrueType' or 'CFF'. */
  fontformat: string;
  charset: string;
}

export function fcScan(path: string): FcScan {
  const out = execFileSync('fc-scan', ['--format', '%{family}\n%{fontformat}\n%{charset}\n', path], {
    encoding: 'utf8',
  });
  const [family = '', fontformat = '', charset = ''] = out.split('\n');
  return { family, fontformat, charset };
}

export interface FontFacts {
  /** null for a bare sfnt (ttf, otf). */
  flavor: 'woff' | 'woff2' | null;
  outlines: 'truetype' | 'cff';
  tables: string[];
  family: string;
  glyphCount: number;
  /** The glyph drawing 'a': its advance width, bounds, signed area and pen commands. */
  advance: number;
  bounds: [number, number, number, number];
  area: number;
  commands: unknown[];
  /** SHA-1 of each table's bytes as stored (unpacked from WOFF/WOFF2). */
  digests: Record<string, string>;
}

const INSPECT = `
import hashlib, json, sys
from fontTools.ttLib import TTFont
from fontTools.pens.areaPen import AreaPen
from fontTools.pens.boundsPen import BoundsPen
from fontTools.pens.recordingPen import RecordingPen
font = TTFont(sys.argv[1])
name = font.getBestCmap()[ord('a')]
glyphs = font.getGlyphSet()
bounds, area, recording = BoundsPen(glyphs), AreaPen(glyphs), RecordingPen()
glyphs[name].draw(bounds)
glyphs[name].draw(area)
glyphs[name].draw(recording)
print(json.dumps({
  'flavor': font.flavor,
  'outlines': 'cff' if 'CFF ' in font else 'truetype',
  'tables': sorted(font.keys()),
  'family': font['name'].getDebugName(1),
  'glyphCount': len(font.getGlyphOrder()),
  'advance': font['hmtx'][name][0],
  'bounds': list(bounds.bounds),
  'area': area.value,
  'commands': recording.value,
  'digests': {tag: hashlib.sha1(font.reader[tag]).hexdigest() for tag in font.reader.keys()},
}))
`;

export function fontFacts(path: string): FontFacts {
  return JSON.parse(execFileSync(PYTHON, ['-I', '-c', INSPECT, path], { encoding: 'utf8' })) as FontFacts;
}
