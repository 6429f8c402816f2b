/**
 * The fenced code blocks of a Markdown file, with the `readme-test` marker written right before
 * each (an HTML comment, invisible on the rendered page), for test/readme.test.ts:
 *
 *   <!-- readme-test: skip <why> -->        not run: needs what a test cannot provide
 *   <!-- readme-test: output -->            an example of output, not code
 *   <!-- readme-test: typecheck <why>       TypeScript checked by tsc, not run; the lines
 *   declare const app: ...                    below the first are put before the block
 *   -->
 *   <!-- readme-test: run                   run, with the lines below the first put before it,
 *   cp fixtures/fixture.heic photo.heic       and after it those that follow a `<block>` line
 *   -->
 *
 * An `sh` or `ts` block without a marker is run as it is; any other block needs a marker.
 */

export type MarkerMode = 'skip' | 'output' | 'typecheck' | 'run';

export interface ReadmeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string ('' for none). */
  lang: string;
  code: string;
  mode: MarkerMode | undefined;
  /** The marker's words after the mode (why a block is skipped or only type-checked). */
  reason: string;
  /** Code put before the block when it is run or type-checked. */
  before: string;
  /** Code put after it. */
  after: string;
}

const MODES: readonly string[] = ['skip', 'output', 'typecheck', 'run'];
const MARKER_START = '<!-- readme-test:';

/** Every fenced block of `markdown`; throws on a marker that is malformed or followed by no block. */
export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: ReadmeBlock[] = [];
  let marker: { line: number; lines: string[] } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    if (text.startsWith(MARKER_START)) {
      const start = i;
      while (!lines[i]!.trimEnd().endsWith('-->')) {
        i++;
        if (i >= lines.length) throw new Error(`README.md:${start + 1}: readme-test marker never closed`);
      }
      const body = lines.slice(start, i + 1).join('\n');
      marker = {
        line: start + 1,
        lines: body.slice(MARKER_START.length, body.lastIndexOf('-->')).trim().split('\n'),
      };
      if (!lines[i + 1]?.startsWith('```')) {
        throw new Error(`README.md:${start + 1}: a readme-test marker must come right before a code block`);
      }
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(text);
    if (!fence) continue;
    const open = i;
    do i++;
    while (i < lines.length && lines[i] !== '```');
    blocks.push({
      line: open + 1,
      lang: fence[1]!,
      code: lines.slice(open + 1, i).join('\n'),
      ...parseMarker(marker),
    });
    marker = undefined;
  }
  return blocks;
}

function parseMarker(
  marker: { line: number; lines: string[] } | undefined,
): Pick<ReadmeBlock, 'mode' | 'reason' | 'before' | 'after'> {
  if (!marker) return { mode: undefined, reason: '', before: '', after: '' };
  const [first = '', ...rest] = marker.lines;
  const [mode = '', ...words] = first.trim().split(/\s+/);
  if (!MODES.includes(mode)) {
    throw new Error(`README.md:${marker.line}: readme-test mode "${mode}" is none of ${MODES.join(', ')}`);
  }
  const reason = words.join(' ');
  if ((mode === 'skip' || mode === 'typecheck') && reason === '') {
    throw new Error(`README.md:${marker.line}: readme-test ${mode} needs a reason`);
  }
  const split = rest.indexOf('<block>');
  return {
    mode: mode as MarkerMode,
    reason,
    before: (split === -1 ? rest : rest.slice(0, split)).join('\n'),
    after: split === -1 ? '' : rest.slice(split + 1).join('\n'),
  };
}
