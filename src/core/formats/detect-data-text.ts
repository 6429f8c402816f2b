/**
 * Text sniffs for the subtitle and data families (used by detect-text.ts): SubRip, ASS/SSA and
 * generic XML. WebVTT, iCalendar and vCard carry signatures file-type knows ('WEBVTT',
 * 'BEGIN:VCALENDAR', 'BEGIN:VCARD'). YAML and JSON are not sniffed: any text can be either.
 */

/** A SubRip cue head: its number alone on a line, then 'hh:mm:ss,mmm --> hh:mm:ss,mmm'. */
const SRT_HEAD = /^\d+[ \t]*\r?\n\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}[ \t]*-->[ \t]*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}/;

/** 'srt' when the text opens with a SubRip cue (blank lines before it are tolerated). */
export function sniffSubRip(text: string): 'srt' | undefined {
  return SRT_HEAD.test(text.replace(/^\s+/, '')) ? 'srt' : undefined;
}

/**
 * 'ass' or 'ssa' for a SubStation file: '[Script Info]' first, and its ScriptType (v4.00+ is
 * ASS, v4.00 SSA) or, when that line is missing, the styles section's name ([V4+ Styles] or
 * [V4 Styles]). A script naming neither is ASS, the dialect every player reads.
 */
export function sniffSubStation(text: string): 'ass' | 'ssa' | undefined {
  if (!/^\s*\[Script Info\]/i.test(text)) return undefined;
  const scriptType = /^ScriptType:\s*v4\.00(\+?)/im.exec(text);
  if (scriptType) return scriptType[1] === '+' ? 'ass' : 'ssa';
  if (/^\[V4 Styles\]/im.test(text)) return 'ssa';
  return 'ass';
}

/**
 * 'xml' for text opening with an XML declaration. Called after every more specific XML sniff
 * (svg, html, and any other XML vocabulary): generic XML is what is left, never what wins.
 */
export function sniffXml(text: string): 'xml' | undefined {
  return /^<\?xml[\s?]/.test(text) ? 'xml' : undefined;
}
