/**
 * The HTML target: a standalone UTF-8 document holding one `<table>`, the first non-empty row as
 * its header (`<thead>`), every cell's text escaped. Line breaks inside cells are kept (CSS
 * pre-wrap) and numbers are right-aligned, as a spreadsheet shows them.
 */
import { type Cell, cellText } from '../../kit/tabular/cells.js';
import type { RowSink } from '../../kit/tabular/rows.js';
import { TextFile } from '../../kit/tabular/text-sinks.js';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe inside an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

const STYLE =
  'table{border-collapse:collapse}th,td{border:1px solid #bbb;padding:2px 6px;' +
  'white-space:pre-wrap;vertical-align:top;text-align:left}td.n{text-align:right}th{background:#eee}';

function cellHtml(tag: 'th' | 'td', cell: Cell): string {
  const open = tag === 'td' && typeof cell === 'number' ? '<td class="n">' : `<${tag}>`;
  return `${open}${escapeHtml(cellText(cell))}</${tag}>`;
}

/** `title` is asked for when the first rows arrive, when a sheet's name is known. */
export function htmlSink(path: string, title: () => string | undefined): RowSink {
  const file = new TextFile(path);
  let width = 0;
  let inBody = false;
  const head = () => {
    const name = escapeHtml(title() ?? 'Sheet');
    return `<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>${name}</title>\n<style>${STYLE}</style>\n</head>\n<body>\n<table>\n`;
  };
  let started = false;
  return {
    async write(rows) {
      let text = '';
      if (!started) {
        text += head();
        started = true;
      }
      for (const row of rows) {
        // Leading blank rows cannot be a header; sources do not produce them, but stay correct.
        const header = !inBody && width === 0 && row.length > 0;
        if (header) width = row.length;
        const cells = row.map((cell) => cellHtml(header ? 'th' : 'td', cell));
        while (cells.length < width) cells.push(header ? '<th></th>' : '<td></td>');
        if (header) {
          text += `<thead>\n<tr>${cells.join('')}</tr>\n</thead>\n<tbody>\n`;
          inBody = true;
        } else {
          if (!inBody) {
            text += '<tbody>\n';
            inBody = true;
          }
          text += `<tr>${cells.join('')}</tr>\n`;
        }
      }
      await file.write(text);
    },
    end: () => file.end(`${started ? '' : head()}${inBody ? '</tbody>\n' : ''}</table>\n</body>\n</html>\n`),
    abort: () => file.abort(),
  };
}
