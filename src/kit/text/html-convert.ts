/**
 * HTML to Markdown and to plain text, both on turndown (which parses with its bundled domino DOM,
 * so no second HTML parser is needed). Markdown gets GitHub-style pipe tables, which turndown
 * alone flattens into loose paragraphs. Plain text reuses turndown's DOM walk and whitespace
 * handling with rules that emit text instead of Markdown: blocks separated by blank lines, list
 * items with "- " or "1. ", table rows as tab-separated cells.
 *
 * Scripts, styles, templates and document metadata are dropped in both: they are not content, and
 * turndown would otherwise emit their source as text.
 */
import type TurndownService from 'turndown';
import type { TurndownClass } from '../libraries/documents.js';
import { assertHtmlDepth } from './html-depth.js';

/** The part of domino's DOM node the rules use (turndown types it as the browser's HTMLElement). */
interface DomNode {
  nodeName: string;
  nodeType: number;
  parentNode: DomNode | null;
  previousSibling: DomNode | null;
  nextSibling: DomNode | null;
  childNodes: ArrayLike<DomNode>;
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): ArrayLike<DomNode>;
  /** Added by turndown to every node it visits. */
  isBlock?: boolean;
}

const asNode = (node: unknown) => node as DomNode;

const NOT_CONTENT = ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TITLE', 'HEAD', 'META', 'LINK', 'BASE'];
const NOT_CONTENT_FILTER = ((node: unknown) =>
  NOT_CONTENT.includes(asNode(node).nodeName)) as TurndownService.FilterFunction;

function isElement(node: DomNode | null, names?: readonly string[]): boolean {
  return node !== null && node.nodeType === 1 && (names === undefined || names.includes(node.nodeName));
}

const CELLS = ['TD', 'TH'];

function isFirstCell(node: DomNode): boolean {
  for (let prev = node.previousSibling; prev; prev = prev.previousSibling)
    if (isElement(prev, CELLS)) return false;
  return true;
}

function isLastCell(node: DomNode): boolean {
  for (let next = node.nextSibling; next; next = next.nextSibling) if (isElement(next, CELLS)) return false;
  return true;
}

function cellCount(row: DomNode): number {
  return Array.from(row.childNodes).filter((child) => isElement(child, CELLS)).length;
}

/** Whether `row` is its table's first row (the header row of a pipe table). */
function isFirstRow(row: DomNode): boolean {
  let table = row.parentNode;
  while (table && table.nodeName !== 'TABLE') table = table.parentNode;
  return table !== null && table.getElementsByTagName('tr')[0] === row;
}

/** One line of cell text: block content inside a cell becomes spaces. */
const cellText = (content: string) => content.replace(/\s*\n+\s*/g, ' ').trim();

function markdownService(Turndown: TurndownClass): TurndownService {
  const service = new Turndown({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
    hr: '---',
  });
  service.remove(NOT_CONTENT_FILTER);
  service.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content, node) =>
      `${isFirstCell(asNode(node)) ? '|' : ''} ${cellText(content).replace(/\|/g, '\\|')} |`,
  });
  // A pipe table needs a header row: the first row is taken as one even when made of <td>
  // (Word tables have no <th>); the alternative, an HTML table in the Markdown, reads worse.
  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const row = asNode(node);
      if (!isFirstRow(row)) return `\n${content}`;
      return `\n${content}\n|${' --- |'.repeat(Math.max(cellCount(row), 1))}`;
    },
  });
  service.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content });
  service.addRule('table', { filter: 'table', replacement: (content) => `\n\n${content}\n\n` });
  return service;
}

function listItemPrefix(item: DomNode): string {
  const list = item.parentNode;
  if (list === null || !isElement(list, ['OL'])) return '- ';
  let number = Number.parseInt(list.getAttribute('start') ?? '1', 10);
  if (!Number.isFinite(number)) number = 1;
  for (let prev = item.previousSibling; prev; prev = prev.previousSibling)
    if (isElement(prev, ['LI'])) number++;
  return `${number}. `;
}

function plainText(content: string, node: DomNode): string {
  switch (node.nodeName) {
    case 'BR':
      return '\n';
    case 'IMG':
      return node.getAttribute('alt') ?? '';
    case 'LI': {
      const prefix = listItemPrefix(node);
      const body = content.trim().replace(/\n{2,}/g, '\n');
      return `\n${prefix}${body.replace(/\n/g, `\n${' '.repeat(prefix.length)}`)}\n`;
    }
    case 'TD':
    case 'TH':
      return cellText(content) + (isLastCell(node) ? '' : '\t');
    case 'TR':
      return `\n${content}\n`;
    case 'THEAD':
    case 'TBODY':
    case 'TFOOT':
      return content;
    default:
      if (NOT_CONTENT.includes(node.nodeName)) return '';
      return node.isBlock ? `\n\n${content}\n\n` : content;
  }
}

function textService(Turndown: TurndownClass): TurndownService {
  const service = new Turndown();
  // Plain text needs no Markdown escaping: "*" and "#" are just characters here.
  service.escape = (text: string) => text;
  service.addRule('plainText', {
    filter: (() => true) as TurndownService.FilterFunction,
    replacement: (content, node) => plainText(content, asNode(node)),
  });
  return service;
}

/**
 * Turndown trims line feeds but not the spaces before them (whitespace between a document's head
 * elements collapses to " "): drop leading blank lines, keep the first line's own indentation.
 */
function finish(output: string): string {
  const text = output.replace(/^\s*\n/, '');
  return text === '' ? '' : `${text}\n`;
}

export function htmlToMarkdown(Turndown: TurndownClass, html: string): string {
  assertHtmlDepth(html);
  return finish(markdownService(Turndown).turndown(html));
}

export function htmlToText(Turndown: TurndownClass, html: string): string {
  assertHtmlDepth(html);
  return finish(textService(Turndown).turndown(html));
}
