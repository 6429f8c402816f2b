/**
 * Document, spreadsheet and presentation entries of the format registry (see registry.ts for
 * the conventions).
 *
 * Text formats (txt, md, csv, tsv) are not `detectable`: their bytes are just text, so detection
 * reports 'txt' and the compatibility rules in detect.ts accept it for each of them.
 */
import type { FormatDefinition } from './types.js';

export const DOCUMENT_FORMATS: readonly FormatDefinition[] = [
  {
    name: 'pdf',
    family: 'document',
    label: 'PDF document',
    aliases: [],
    extensions: ['pdf'],
    mimeTypes: ['application/pdf', 'application/x-pdf'],
    detectable: true,
  },
  {
    name: 'docx',
    family: 'document',
    label: 'Word document',
    aliases: [],
    extensions: ['docx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    detectable: true,
  },
  {
    name: 'doc',
    family: 'document',
    label: 'Word 97-2003 document',
    // .dot templates are the same binary format.
    aliases: ['dot'],
    extensions: ['doc', 'dot'],
    mimeTypes: ['application/msword'],
    detectable: true,
  },
  {
    name: 'odt',
    family: 'document',
    label: 'OpenDocument text',
    aliases: [],
    extensions: ['odt'],
    mimeTypes: ['application/vnd.oasis.opendocument.text'],
    detectable: true,
  },
  {
    name: 'ott',
    family: 'document',
    label: 'OpenDocument text template',
    aliases: [],
    extensions: ['ott'],
    mimeTypes: ['application/vnd.oasis.opendocument.text-template'],
    detectable: true,
  },
  {
    name: 'dotx',
    family: 'document',
    label: 'Word template',
    aliases: [],
    extensions: ['dotx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.template'],
    // Told by its [Content_Types].xml; where that lies beyond the head, the folders say docx (compatible).
    detectable: true,
  },
  {
    name: 'docm',
    family: 'document',
    label: 'Word document with macros (never run)',
    aliases: [],
    extensions: ['docm'],
    mimeTypes: ['application/vnd.ms-word.document.macroenabled.12'],
    // Its macros never run: LibreOffice opens documents with macros off (libreoffice-profile.ts).
    detectable: true,
  },
  {
    // The whole document in one XML file: <office:document office:mimetype=...> (detect-office-xml.ts).
    name: 'fodt',
    family: 'document',
    label: 'OpenDocument text (flat XML)',
    aliases: [],
    extensions: ['fodt'],
    mimeTypes: ['application/vnd.oasis.opendocument.text-flat-xml'],
    detectable: true,
  },
  {
    // OpenOffice.org 1.x / StarOffice 6-7 XML: a zip whose stored 'mimetype' entry names it, like ODF.
    // LibreOffice still reads it and writes it no more, so it is a source only.
    name: 'sxw',
    family: 'document',
    label: 'StarOffice / OpenOffice.org 1 text',
    aliases: [],
    extensions: ['sxw'],
    mimeTypes: ['application/vnd.sun.xml.writer'],
    detectable: true,
  },
  {
    // WordPerfect 5-12: read by LibreOffice through libwpd, never written. Told by the 'FF WPC'
    // signature and the header's product and file type (detect-office.ts).
    name: 'wpd',
    family: 'document',
    label: 'WordPerfect document',
    aliases: ['wp', 'wp5', 'wp6'],
    extensions: ['wpd', 'wp', 'wp5', 'wp6'],
    mimeTypes: ['application/vnd.wordperfect', 'application/wordperfect', 'application/x-wordperfect'],
    detectable: true,
  },
  {
    // A LibreOffice Draw document: pages of shapes and text, opened in Draw (pdf, png, svg, emf, wmf).
    name: 'odg',
    family: 'document',
    label: 'OpenDocument drawing',
    aliases: [],
    extensions: ['odg'],
    mimeTypes: ['application/vnd.oasis.opendocument.graphics'],
    detectable: true,
  },
  {
    // Apple Pages, read by LibreOffice through libetonyek (Pages '09 XML fully, 2013+ partly).
    // Not detectable: Pages '09 is a zip whose index.xml (deflated) is all that tells it from
    // Numbers '09, and 2013+ files share one layout with Keynote and Numbers ('iwork', detect.ts);
    // a file declared pages is accepted when it is such a zip.
    name: 'pages',
    family: 'document',
    label: 'Apple Pages document',
    aliases: [],
    extensions: ['pages'],
    mimeTypes: ['application/vnd.apple.pages', 'application/x-iwork-pages-sffpages'],
    detectable: false,
  },
  {
    // Visio 2013+ drawings: an OPC zip like docx (visio/ parts), read by LibreOffice Draw through
    // libvisio and never written. The binary .vsd of older Visio versions is not registered: no
    // fixture could be made for it (no packaged tool writes it).
    name: 'vsdx',
    family: 'document',
    label: 'Visio drawing',
    aliases: [],
    extensions: ['vsdx'],
    mimeTypes: ['application/vnd.ms-visio.drawing', 'application/vnd.ms-visio.drawing.main+xml'],
    detectable: true,
  },
  {
    name: 'rtf',
    family: 'document',
    label: 'Rich Text Format document',
    aliases: [],
    extensions: ['rtf'],
    mimeTypes: ['application/rtf', 'text/rtf'],
    detectable: true,
  },
  {
    name: 'txt',
    family: 'document',
    label: 'Plain text',
    aliases: ['text', 'log'],
    extensions: ['txt', 'text', 'log'],
    mimeTypes: ['text/plain'],
    detectable: false,
  },
  {
    name: 'md',
    family: 'document',
    label: 'Markdown document',
    aliases: ['markdown', 'mkd'],
    extensions: ['md', 'markdown', 'mkd'],
    mimeTypes: ['text/markdown', 'text/x-markdown'],
    detectable: false,
  },
  {
    name: 'html',
    family: 'document',
    label: 'HTML document',
    aliases: ['htm'],
    extensions: ['html', 'htm'],
    mimeTypes: ['text/html'],
    detectable: true,
  },
  {
    // A web page with its stylesheets, fonts and images, zipped: index.html at the root of the
    // zip or in its one top folder. Uploads are called .zip, which no format claims (a zip is
    // many things): detection looks inside for the index (detect-containers.ts). No MIME type is
    // registered for it; the x- type follows the +zip suffix convention (RFC 6839).
    name: 'htmlzip',
    family: 'document',
    label: 'HTML page with assets (zip)',
    aliases: [],
    extensions: ['htmlzip'],
    mimeTypes: ['application/x-html+zip'],
    detectable: true,
  },
  {
    // A web address to capture (url-file.ts): an Internet shortcut as Windows writes it
    // ('[InternetShortcut]' and 'URL=...') or text holding one http(s) URL. The job's input is
    // this small file, so jobs, chains and the direct API take a URL like any upload.
    name: 'url',
    family: 'document',
    label: 'Web page address (Internet shortcut)',
    aliases: [],
    extensions: ['url'],
    mimeTypes: ['application/x-mswinurl', 'text/uri-list', 'application/internet-shortcut'],
    detectable: true,
  },
];

export const SPREADSHEET_FORMATS: readonly FormatDefinition[] = [
  {
    name: 'xlsx',
    family: 'spreadsheet',
    label: 'Excel workbook',
    aliases: [],
    extensions: ['xlsx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    detectable: true,
  },
  {
    name: 'xls',
    family: 'spreadsheet',
    label: 'Excel 97-2003 workbook',
    aliases: ['xlt'],
    extensions: ['xls', 'xlt'],
    // Windows browsers also send application/vnd.ms-excel for .csv uploads. It stays with xls
    // (one MIME, one format); content detection then sorts a CSV declared this way out.
    mimeTypes: ['application/vnd.ms-excel', 'application/x-msexcel', 'application/x-excel'],
    detectable: true,
  },
  {
    name: 'ods',
    family: 'spreadsheet',
    label: 'OpenDocument spreadsheet',
    aliases: [],
    extensions: ['ods'],
    mimeTypes: ['application/vnd.oasis.opendocument.spreadsheet'],
    detectable: true,
  },
  {
    name: 'ots',
    family: 'spreadsheet',
    label: 'OpenDocument spreadsheet template',
    aliases: [],
    extensions: ['ots'],
    mimeTypes: ['application/vnd.oasis.opendocument.spreadsheet-template'],
    detectable: true,
  },
  {
    name: 'xltx',
    family: 'spreadsheet',
    label: 'Excel template',
    aliases: [],
    extensions: ['xltx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.template'],
    detectable: true,
  },
  {
    name: 'xlsm',
    family: 'spreadsheet',
    label: 'Excel workbook with macros (never run)',
    aliases: [],
    extensions: ['xlsm'],
    mimeTypes: ['application/vnd.ms-excel.sheet.macroenabled.12'],
    detectable: true,
  },
  {
    name: 'fods',
    family: 'spreadsheet',
    label: 'OpenDocument spreadsheet (flat XML)',
    aliases: [],
    extensions: ['fods'],
    mimeTypes: ['application/vnd.oasis.opendocument.spreadsheet-flat-xml'],
    detectable: true,
  },
  {
    // Excel 2003's XML Spreadsheet (Microsoft calls the schema XMLSS). Such files are named .xml,
    // which stays with the xml data format: this one is told by its bytes (an mso-application
    // Excel.Sheet instruction or the urn:schemas-microsoft-com:office:spreadsheet namespace,
    // detect-office-xml.ts). No MIME type is registered for it; the x- type is ours.
    name: 'xmlss',
    family: 'spreadsheet',
    label: 'Excel 2003 XML spreadsheet (SpreadsheetML)',
    aliases: [],
    extensions: ['xmlss'],
    mimeTypes: ['application/x-xmlss+xml'],
    detectable: true,
  },
  {
    // Symbolic Link: text records, the first one 'ID;P' (detect-office-xml.ts). One sheet, values only.
    name: 'slk',
    family: 'spreadsheet',
    label: 'SYLK spreadsheet',
    aliases: ['sylk'],
    extensions: ['slk', 'sylk'],
    mimeTypes: ['text/spreadsheet', 'application/x-sylk', 'text/x-sylk'],
    detectable: true,
  },
  {
    // A dBase III+/IV/FoxPro table: no magic number, but a header whose field descriptors must add up
    // (record length, header length, field types); detect-containers.ts checks all of that.
    name: 'dbf',
    family: 'spreadsheet',
    label: 'dBase table',
    aliases: [],
    extensions: ['dbf'],
    mimeTypes: ['application/x-dbf', 'application/dbase', 'application/x-dbase', 'application/dbf'],
    detectable: true,
  },
  {
    // OpenOffice.org 1.x / StarOffice 6-7 XML: a zip whose stored 'mimetype' entry names it, like ODF.
    // LibreOffice still reads it and writes it no more, so it is a source only.
    name: 'sxc',
    family: 'spreadsheet',
    label: 'StarOffice / OpenOffice.org 1 spreadsheet',
    aliases: [],
    extensions: ['sxc'],
    mimeTypes: ['application/vnd.sun.xml.calc'],
    detectable: true,
  },
  {
    name: 'csv',
    family: 'spreadsheet',
    label: 'Comma-separated values',
    aliases: [],
    extensions: ['csv'],
    mimeTypes: ['text/csv', 'application/csv', 'text/x-csv', 'text/comma-separated-values'],
    detectable: false,
  },
  {
    name: 'tsv',
    family: 'spreadsheet',
    label: 'Tab-separated values',
    aliases: ['tab'],
    extensions: ['tsv', 'tab'],
    mimeTypes: ['text/tab-separated-values'],
    detectable: false,
  },
];

export const PRESENTATION_FORMATS: readonly FormatDefinition[] = [
  {
    name: 'pptx',
    family: 'presentation',
    label: 'PowerPoint presentation',
    aliases: [],
    extensions: ['pptx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.presentationml.presentation'],
    detectable: true,
  },
  {
    name: 'ppt',
    family: 'presentation',
    label: 'PowerPoint 97-2003 presentation',
    // .pps (slide show) and .pot (template) are the same binary format.
    aliases: ['pps', 'pot'],
    extensions: ['ppt', 'pps', 'pot'],
    mimeTypes: ['application/vnd.ms-powerpoint'],
    detectable: true,
  },
  {
    name: 'odp',
    family: 'presentation',
    label: 'OpenDocument presentation',
    aliases: [],
    extensions: ['odp'],
    mimeTypes: ['application/vnd.oasis.opendocument.presentation'],
    detectable: true,
  },
  {
    name: 'otp',
    family: 'presentation',
    label: 'OpenDocument presentation template',
    aliases: [],
    extensions: ['otp'],
    mimeTypes: ['application/vnd.oasis.opendocument.presentation-template'],
    detectable: true,
  },
  {
    name: 'potx',
    family: 'presentation',
    label: 'PowerPoint template',
    aliases: [],
    extensions: ['potx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.presentationml.template'],
    detectable: true,
  },
  {
    name: 'pptm',
    family: 'presentation',
    label: 'PowerPoint presentation with macros (never run)',
    aliases: [],
    extensions: ['pptm'],
    mimeTypes: ['application/vnd.ms-powerpoint.presentation.macroenabled.12'],
    detectable: true,
  },
  {
    name: 'fodp',
    family: 'presentation',
    label: 'OpenDocument presentation (flat XML)',
    aliases: [],
    extensions: ['fodp'],
    mimeTypes: ['application/vnd.oasis.opendocument.presentation-flat-xml'],
    detectable: true,
  },
  {
    // A pptx that opens as a running show: PowerPoint names the slide-show content type in
    // [Content_Types].xml (file-type reads it); LibreOffice 7.4 writes the presentation one, so its
    // .ppsx files are detected as pptx (compatible).
    name: 'ppsx',
    family: 'presentation',
    label: 'PowerPoint slide show',
    aliases: [],
    extensions: ['ppsx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.presentationml.slideshow'],
    detectable: true,
  },
  {
    // OpenOffice.org 1.x / StarOffice 6-7 XML: a zip whose stored 'mimetype' entry names it, like ODF.
    // LibreOffice still reads it and writes it no more, so it is a source only.
    name: 'sxi',
    family: 'presentation',
    label: 'StarOffice / OpenOffice.org 1 presentation',
    aliases: [],
    extensions: ['sxi'],
    mimeTypes: ['application/vnd.sun.xml.impress'],
    detectable: true,
  },
  {
    name: 'key',
    family: 'presentation',
    label: 'Apple Keynote presentation',
    aliases: ['keynote'],
    extensions: ['key'],
    mimeTypes: ['application/vnd.apple.keynote', 'application/x-iwork-keynote-sffkey'],
    // Keynote 2013+ files are iWork zips that Pages and Numbers files share the layout of: the
    // bytes say "iWork", not "Keynote" (see detect.ts), so this is not detectable by name.
    detectable: false,
  },
];
