/**
 * The plain text of Markdown's inline tokens (marked's lexer output): what a PDF draws, and what an
 * HTML title is made of. Emphasis and links keep their text, images their alt text.
 */
import type { Token, Tokens } from 'marked';
import { decodeEntities } from './html-document.js';

/** The nested tokens of a token of any type, marked's own or an extension's. */
export function childTokens(token: Token): Token[] | undefined {
  return 'tokens' in token && Array.isArray(token.tokens) ? token.tokens : undefined;
}

/** A line feed inside a paragraph is a soft break: it reads as a space. */
const softBreaks = (text: string) => text.replace(/[ \t]*\n[ \t]*/g, ' ');

/** The text of inline tokens, with hard breaks (and only those) as line feeds. */
export function inlineText(tokens: readonly Token[]): string {
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
      case 'escape': {
        const text = token as Tokens.Text;
        out += text.tokens ? inlineText(text.tokens) : softBreaks(decodeEntities(text.text));
        break;
      }
      case 'codespan':
        out += softBreaks((token as Tokens.Codespan).text); // code is literal: no entities in it
        break;
      case 'br':
        out += '\n';
        break;
      case 'image':
        out += (token as Tokens.Image).text;
        break;
      case 'html':
        // Inline HTML is tags only (their text comes as separate tokens); a <br> still breaks the line.
        if (/^<br\s*\/?>$/i.test((token as Tokens.Tag).text)) out += '\n';
        break;
      case 'checkbox':
        break;
      default: {
        const nested = childTokens(token);
        if (nested) out += inlineText(nested);
        else if ('text' in token && typeof token.text === 'string')
          out += softBreaks(decodeEntities(token.text));
      }
    }
  }
  return out;
}
