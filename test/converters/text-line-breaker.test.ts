/** The greedy line breaker of the PDF layout, with character counts as widths. */
import { describe, expect, it } from 'vitest';
import { breakLines } from '../../src/converters/text/line-breaker.js';

describe('breakLines', () => {
  const lines = (text: string, width: number) => [...breakLines(text, width, (s) => [...s].length)];

  it('packs words greedily and drops only the spaces at a break', () => {
    expect(lines('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(lines('aaa  bbb', 8)).toEqual(['aaa  bbb']);
    expect(lines('aaa   bbb', 5)).toEqual(['aaa', 'bbb']);
  });

  it('breaks a word longer than the line between characters, keeping surrogate pairs and marks', () => {
    expect(lines('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(lines('ab 😀😀😀😀😀', 3)).toEqual(['ab', '😀😀😀', '😀😀']);
    expect(lines('abce\u0301f', 4)).toEqual(['abce\u0301', 'f']);
  });

  it('keeps indentation on the first line only, and yields one empty line for blank input', () => {
    expect(lines('    indented words here', 12)).toEqual(['    indented', 'words here']);
    expect(lines('', 10)).toEqual(['']);
    expect(lines('   ', 10)).toEqual(['']);
  });

  it('always makes progress, even when one character is wider than the line', () => {
    expect(lines('ab', 0.5)).toEqual(['a', 'b']);
  });
});
