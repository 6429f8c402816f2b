/**
 * Markdown to HTML speaks GitHub Flavored Markdown: tables (with column alignment), strikethrough,
 * task lists and bare autolinks, checked by python3's own html.parser, not by this code.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createTextConverter } from '../../src/converters/text/index.js';
import { context, withOptionsParsed, workspace } from './converter-harness.js';

/** The table cells (tag, align, text), struck text, checkboxes and links python's parser finds. */
const READ_HTML = `import json, sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.cells = []; self.cell = None; self.dels = []; self.inside_del = False; self.boxes = []; self.links = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ('th', 'td'): self.cell = [tag, a.get('align') or '', '']
        if tag == 'del': self.inside_del = True; self.dels.append('')
        if tag == 'input' and a.get('type') == 'checkbox': self.boxes.append('checked' in a)
        if tag == 'a': self.links.append(a.get('href'))
    def handle_endtag(self, tag):
        if tag in ('th', 'td'): self.cells.append(self.cell); self.cell = None
        if tag == 'del': self.inside_del = False
    def handle_data(self, data):
        if self.cell is not None: self.cell[2] += data.strip()
        if self.inside_del: self.dels[-1] += data
p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read())
print(json.dumps({'cells': p.cells, 'dels': p.dels, 'boxes': p.boxes, 'links': p.links}))`;

it('md -> html renders GFM tables with alignment, strikethrough, task lists and autolinks', async () => {
  const ws = await workspace();
  const inputPath = join(ws.inputs, 'gfm.md');
  await writeFile(
    inputPath,
    [
      '| Left | Centre | Right |',
      '|:-----|:------:|------:|',
      '| a    | b      | 1     |',
      '| `c`  | **d**  | 22    |',
      '',
      'Now ~~obsolete~~ current.',
      '',
      '- [x] done',
      '- [ ] to do',
      '',
      'See https://example.com/docs for more.',
    ].join('\n'),
  );
  const ctx = context(ws, 'md', 'html', { inputPath });
  await withOptionsParsed(createTextConverter()).convert(ctx);
  const html = await readFile(ctx.outputPath, 'utf8');
  const found = JSON.parse(execFileSync('python3', ['-c', READ_HTML, ctx.outputPath], { encoding: 'utf8' }));
  expect(found.cells).toEqual([
    ['th', 'left', 'Left'],
    ['th', 'center', 'Centre'],
    ['th', 'right', 'Right'],
    ['td', 'left', 'a'],
    ['td', 'center', 'b'],
    ['td', 'right', '1'],
    ['td', 'left', 'c'],
    ['td', 'center', 'd'],
    ['td', 'right', '22'],
  ]);
  expect(found.dels).toEqual(['obsolete']);
  expect(found.boxes).toEqual([true, false]);
  expect(found.links).toContain('https://example.com/docs');
  expect(html).toContain('<table>');
});
