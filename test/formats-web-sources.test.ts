/**
 * The formats of pages beside a single HTML file (issue 16 items 2 and 3): 'url' (an Internet
 * shortcut, or one http(s) URL alone) and 'htmlzip' (a zip with index.html), how they are parsed
 * and detected from their bytes, and which declared formats accept them.
 */
import { describe, expect, it } from 'vitest';
import { detectFormat, isContentCompatible, urlFileContent } from '../src/core/formats/index.js';
import { parseUrlFile } from '../src/core/formats/url-file.js';
import { resolveSourceFormat } from '../src/engine/planning.js';
import { zipBytes } from './helpers/zip.js';

const text = (value: string) => new TextEncoder().encode(value);
const zip = async (names: readonly string[]) =>
  new Uint8Array(await zipBytes(new Map(names.map((name) => [name, Buffer.from(`<p>${name}</p>`)]))));

describe('URL files', () => {
  it.each([
    ['https://example.com/a?b=c#d', 'https://example.com/a?b=c#d'],
    ['  http://example.com/\r\n\r\n', 'http://example.com/'],
    ['\uFEFFhttps://example.com/', 'https://example.com/'],
    ['[InternetShortcut]\r\nURL=https://example.com/x\r\n', 'https://example.com/x'],
    // Windows writes a [DEFAULT] section first, and other sections after.
    [
      '[DEFAULT]\r\nBASEURL=https://example.com/\r\n[InternetShortcut]\r\nURL=https://example.com/y\r\nIconIndex=0\r\n[{000214A0-0000-0000-C000-000000000046}]\r\nProp3=19,11\r\n',
      'https://example.com/y',
    ],
    // A shortcut to any scheme is still a shortcut: the converter refuses it, detection does not hide it.
    ['[InternetShortcut]\nURL=file:///etc/passwd\n', 'file:///etc/passwd'],
  ])('reads %j', (content, url) => {
    expect(parseUrlFile(content)).toBe(url);
  });

  it.each([
    '',
    'example.com',
    'see https://example.com/',
    'https://example.com/\nhttps://example.org/',
    'file:///etc/passwd',
    'note: call back',
    '[InternetShortcut]\nIconFile=x.ico\n',
    '[Other]\nURL=https://example.com/\n',
    '[InternetShortcut]\nURL=https://example.com/\nthis is not ini\n',
  ])('does not take %j for a URL file', (content) => {
    expect(parseUrlFile(content)).toBeUndefined();
  });

  it('writes a shortcut that reads back, and refuses what is no URL', () => {
    const content = urlFileContent(' https://example.com/a b ');
    expect(content).toBe('[InternetShortcut]\r\nURL=https://example.com/a%20b\r\n');
    expect(parseUrlFile(content)).toBe('https://example.com/a%20b');
    expect(() => urlFileContent('not a url')).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
  });

  it('is detected from its bytes, and plain text holding a URL stays acceptable as text', async () => {
    expect(await detectFormat(text('https://example.com/'))).toBe('url');
    expect(await detectFormat(text(urlFileContent('https://example.com/')))).toBe('url');
    expect(await detectFormat(text('Visit https://example.com/ today'))).toBe('txt');
    for (const declared of ['txt', 'md', 'csv', 'url'])
      expect(isContentCompatible(declared, 'url')).toBe(true);
    expect(isContentCompatible('url', 'txt')).toBe(false);
    expect(isContentCompatible('html', 'url')).toBe(false);
    expect(await resolveSourceFormat(text('https://example.com/'), undefined, 'link.url')).toBe('url');
    expect(await resolveSourceFormat(text('https://example.com/'), undefined, 'link.txt')).toBe('txt');
  });
});

describe('zipped pages', () => {
  it('are zips with index.html at the root or one folder down', async () => {
    expect(await detectFormat(await zip(['index.html', 'style.css']))).toBe('htmlzip');
    expect(await detectFormat(await zip(['style.css', 'site/INDEX.HTM']))).toBe('htmlzip');
    expect(await detectFormat(await zip(['a/b/index.html']))).toBe('zip');
    expect(await detectFormat(await zip(['page.html']))).toBe('zip');
    expect(await detectFormat(await zip(['__MACOSX/index.html']))).toBe('zip');
    // A package's own entry wins over a page inside it.
    expect(await detectFormat(await zip(['index.html', 'word/document.xml']))).toBe('docx');
  });

  it('are what a .zip upload resolves to; any other zip is a zip archive', async () => {
    expect(await resolveSourceFormat(await zip(['index.html']), undefined, 'site.zip')).toBe('htmlzip');
    expect(await resolveSourceFormat(await zip(['notes.txt']), undefined, 'site.zip')).toBe('zip');
    // Declared, a zipped page is taken as the archive it also is.
    expect(await resolveSourceFormat(await zip(['index.html']), 'zip', 'site.zip')).toBe('zip');
    expect(isContentCompatible('htmlzip', 'zip')).toBe(true);
    expect(isContentCompatible('htmlzip', 'docx')).toBe(false);
  });
});
