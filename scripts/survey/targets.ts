/**
 * The main targets a user asks of each source format in the real-files survey: what the issue's
 * survey asked (a document to pdf and to the other word processor, a sheet to csv, an animation
 * to webp and mp4...). A format missing here is not surveyed.
 */
const WORD = ['pdf', 'docx'];
const SHEET = ['pdf', 'csv', 'xlsx'];
const SLIDES = ['pdf', 'pptx'];
const PICTURE = ['png', 'webp'];
const SOUND = ['mp3', 'ogg'];

export const TARGETS: Readonly<Record<string, readonly string[]>> = {
  // Office files and templates
  odt: WORD,
  ott: WORD,
  docx: ['pdf', 'odt'],
  dotx: ['pdf', 'odt'],
  doc: WORD,
  rtf: WORD,
  fodt: WORD,
  ods: SHEET,
  ots: SHEET,
  xlsx: ['pdf', 'csv', 'ods'],
  xls: SHEET,
  fods: SHEET,
  odp: SLIDES,
  otp: SLIDES,
  pptx: ['pdf', 'odp'],
  ppt: SLIDES,
  // Images
  png: ['jpg', 'webp'],
  jpg: ['png', 'webp'],
  gif: ['png', 'webp', 'mp4'],
  bmp: PICTURE,
  ico: PICTURE,
  tiff: ['png', 'pdf'],
  webp: ['png', 'jpg'],
  svg: ['png', 'pdf'],
  svgz: ['png', 'pdf'],
  eps: ['pdf', 'png'],
  ps: ['pdf', 'png'],
  xpm: PICTURE,
  ppm: PICTURE,
  pgm: PICTURE,
  pbm: PICTURE,
  tga: PICTURE,
  // Sound and video
  wav: SOUND,
  mp3: ['wav', 'ogg'],
  ogg: ['mp3', 'wav'],
  flac: SOUND,
  mp4: ['webm', 'gif'],
  webm: ['mp4'],
  // Books, text, data
  pdf: ['txt', 'png'],
  epub: ['pdf', 'txt', 'mobi'],
  md: ['html', 'pdf'],
  html: ['pdf', 'md'],
  txt: ['pdf', 'html'],
  csv: ['xlsx', 'json'],
  json: ['yaml'],
  yaml: ['json'],
  xml: ['json'],
  toml: ['json'],
  ics: ['csv'],
  vcf: ['csv'],
  srt: ['vtt'],
  vtt: ['srt'],
  // Fonts and archives
  ttf: ['woff2'],
  otf: ['woff2'],
  woff: ['ttf'],
  woff2: ['ttf'],
  zip: ['tgz'],
  tar: ['zip'],
  tgz: ['zip'],
  tbz2: ['zip'],
  txz: ['zip'],
  '7z': ['zip'],
};
