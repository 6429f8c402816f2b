/**
 * Display names from clients: each class of invisible character that can make a name read as
 * something else is removed (one case per class), paths are dropped, and long names are cut
 * without halving a character.
 */
import { describe, expect, it } from 'vitest';
import { outputNameFor, sanitizeFileName } from '../src/index.js';

describe('sanitizeFileName', () => {
  it.each([
    ['a right-to-left override (U+202E)', 'invoice\u202Efdp.jpg', 'invoicefdp.jpg'],
    [
      'left-to-right and right-to-left embeddings and pop (U+202A, U+202B, U+202C)',
      '\u202Aa\u202Bb\u202Cc.png',
      'abc.png',
    ],
    ['a left-to-right override (U+202D)', 'x\u202Dy.png', 'xy.png'],
    ['isolates (U+2066-U+2069)', '\u2066a\u2067b\u2068c\u2069.txt', 'abc.txt'],
    ['directional marks (U+200E, U+200F, U+061C)', 'a\u200Eb\u200Fc\u061C.txt', 'abc.txt'],
    ['zero-width space, non-joiner and joiner (U+200B-U+200D)', 'pa\u200By\u200Cp\u200Dal.pdf', 'paypal.pdf'],
    ['a word joiner and a byte order mark (U+2060, U+FEFF)', '\uFEFFre\u2060port.docx', 'report.docx'],
    ['a soft hyphen (U+00AD)', 'in\u00ADvoice.pdf', 'invoice.pdf'],
    ['C1 controls (U+0085, U+009B)', 'a\u0085b\u009Bc.txt', 'abc.txt'],
    ['line and paragraph separators (U+2028, U+2029)', 'a\u2028b\u2029c.txt', 'abc.txt'],
  ])('removes %s', (_what, given, expected) => {
    expect(sanitizeFileName(given)).toBe(expected);
  });

  it('keeps the letters of every script, composed (NFC)', () => {
    expect(sanitizeFileName("l'e\u0301te\u0301 日本 مرحبا.png")).toBe("l'été 日本 مرحبا.png");
  });

  it('a download name made from an overriding name shows its real extension', () => {
    expect(outputNameFor('invoice\u202Efdp.exe.jpg', 'pdf')).toBe('invoicefdp.exe.pdf');
  });

  it('cuts a long name by whole characters, keeping the extension', () => {
    const name = sanitizeFileName(`${'😀'.repeat(150)}.png`);
    expect(name.endsWith('.png')).toBe(true);
    expect(name.length).toBeLessThanOrEqual(200);
    expect(name.slice(0, -4)).toBe('😀'.repeat((name.length - 4) / 2));
  });

  it('is "file" when nothing visible is left', () => {
    expect(sanitizeFileName('\u202E\u200B')).toBe('file');
  });
});
