/**
 * The one boolean syntax (src/core/boolean-text.ts): 1/0, true/false, on/off, yes/no in any
 * case; unset or empty is no answer; any other word is refused naming the setting and the
 * spellings. The engines' own variables take it too: FILECONV_URL_CAPTURE=off turns URL capture
 * off (only "0" did before) and FILECONV_URL_ALLOW_PRIVATE=true is read as true (only "1" was).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createChromiumConverter } from '../src/converters/chromium/index.js';
import { parseBooleanText } from '../src/core/boolean-text.js';
import { isFileconvError } from '../src/core/errors.js';

const saved = { ...process.env };
afterEach(() => {
  for (const name of ['FILECONV_URL_CAPTURE', 'FILECONV_URL_ALLOW_PRIVATE']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('parseBooleanText', () => {
  it.each([
    ['1', true],
    ['0', false],
    ['TRUE', true],
    ['false', false],
    ['On', true],
    [' off ', false],
    ['yes', true],
    ['NO', false],
    [undefined, undefined],
    ['', undefined],
  ] as const)('%j is %j', (text, value) => {
    expect(parseBooleanText(text, 'X')).toBe(value);
  });

  it('refuses any other word, naming the setting and the spellings', () => {
    const refused = (() => {
      try {
        return parseBooleanText('enabled', 'FILECONV_X');
      } catch (error) {
        return error;
      }
    })();
    expect(isFileconvError(refused, 'INVALID_OPTIONS')).toBe(true);
    expect((refused as Error).message).toBe(
      'FILECONV_X must be 1/0, true/false, on/off or yes/no (any case), got "enabled".',
    );
  });
});

describe("the Chromium converter's variables", () => {
  const urlEdges = () => createChromiumConverter().edges.filter((edge) => edge.from === 'url').length;

  it('FILECONV_URL_CAPTURE takes any boolean spelling', () => {
    expect(urlEdges()).toBeGreaterThan(0);
    process.env.FILECONV_URL_CAPTURE = 'off';
    expect(urlEdges()).toBe(0);
    process.env.FILECONV_URL_CAPTURE = 'yes';
    expect(urlEdges()).toBeGreaterThan(0);
    process.env.FILECONV_URL_CAPTURE = 'sometimes';
    expect(() => createChromiumConverter()).toThrow(/FILECONV_URL_CAPTURE must be 1\/0, true\/false/);
  });

  it('FILECONV_URL_ALLOW_PRIVATE is refused when it is no boolean (it was read as false)', () => {
    process.env.FILECONV_URL_ALLOW_PRIVATE = 'true';
    expect(() => createChromiumConverter()).not.toThrow();
    process.env.FILECONV_URL_ALLOW_PRIVATE = 'intranet';
    expect(() => createChromiumConverter()).toThrow(/FILECONV_URL_ALLOW_PRIVATE must be/);
  });
});
