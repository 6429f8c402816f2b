/**
 * The Python program the font converter runs with fontTools (passed with `python3 -I -c`, so
 * nothing but this string has to ship, and neither the working directory nor PYTHON* variables
 * can change what it imports).
 *
 * It checks the file's layout before fontTools inflates anything (tables inside the file, WOFF
 * declared sizes under the limit), caps its own address space (a backstop: a WOFF2 stream was
 * already inflated once, counting, by woff2-stream.ts), reads every table
 * and glyph so a broken one is found before writing, converts outlines when the target's kind
 * differs (cu2qu for CFF -> TrueType, exact quadratic-to-cubic for TrueType -> CFF), and saves
 * with the target's flavour. argv: input, output, target, max unpacked bytes, memory bytes.
 * Exit codes: 65 the input is broken, 66 a limit was exceeded, 67 the conversion is not supported
 * for this font; the reason is on the last stderr line, after 'fileconv-font: '.
 */
export const FONT_EXIT = { corrupt: 65, limit: 66, unsupported: 67 } as const;
export const FONT_MESSAGE_PREFIX = 'fileconv-font: ';

export const CONVERT_FONT_PY = String.raw`
import struct
import sys

# argv: input, output, target (ttf | otf | woff | woff2), most bytes the unpacked font may declare,
# address-space limit in bytes (0: none).
SOURCE, TARGET_PATH, TARGET = sys.argv[1], sys.argv[2], sys.argv[3]
MAX_SFNT_BYTES, MEMORY_BYTES = int(sys.argv[4]), int(sys.argv[5])
CORRUPT, LIMIT, UNSUPPORTED = 65, 66, 67


def fail(code, message):
    sys.stderr.write('fileconv-font: ' + message + '\n')
    sys.exit(code)


if MEMORY_BYTES > 0:
    import resource

    # A backstop only: WOFF tables inflate no further than declared (bounded_woff_table), and the
    # converter inflated a WOFF2 stream once, counting, before this ran (woff2-stream.ts).
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))

try:
    import zlib

    from fontTools.ttLib import TTFont, TTLibError, newTable, sfnt
except ImportError as error:
    sys.stderr.write('fileconv-font: fontTools is not installed: %s\n' % error)
    sys.exit(1)


def check_layout(data):
    """Refuses, before fontTools inflates anything, a file whose tables lie outside it or whose
    declared unpacked size is past the limit."""
    size = len(data)
    if size < 12:
        fail(CORRUPT, 'the file is too short to be a font (%d bytes)' % size)
    tag = data[:4]
    if tag == b'ttcf':
        fail(UNSUPPORTED, 'font collections (several fonts in one file) are not supported')
    if tag in (b'wOFF', b'wOF2'):
        header = 44 if tag == b'wOFF' else 48
        if size < header:
            fail(CORRUPT, 'the file is truncated: %d bytes, the header alone takes %d' % (size, header))
        length, tables, _, total = struct.unpack('>LHHL', data[8:20])
        if length != size:
            fail(CORRUPT, 'the file is %d bytes but its header says %d: truncated or padded' % (size, length))
        if total > MAX_SFNT_BYTES:
            fail(LIMIT, 'the font declares %d bytes unpacked; the limit is %d' % (total, MAX_SFNT_BYTES))
        if tag == b'wOFF':
            declared = 0
            for index in range(tables):
                at = header + 20 * index
                if at + 20 > size:
                    fail(CORRUPT, 'the table directory runs past the end of the file')
                name, offset, packed, unpacked = struct.unpack('>4sLLL', data[at:at + 16])
                if offset + packed > size:
                    fail(CORRUPT, 'table %r runs past the end of the file' % name.decode('latin-1'))
                declared += unpacked
            if declared > MAX_SFNT_BYTES:
                fail(LIMIT, 'the tables declare %d bytes unpacked; the limit is %d' % (declared, MAX_SFNT_BYTES))
        return
    if tag not in (b'\x00\x01\x00\x00', b'OTTO', b'true'):
        fail(CORRUPT, 'not a TrueType, OpenType or WOFF font (signature %r)' % tag)
    tables = struct.unpack('>H', data[4:6])[0]
    for index in range(tables):
        at = 12 + 16 * index
        if at + 16 > size:
            fail(CORRUPT, 'the table directory runs past the end of the file')
        name, _, offset, length = struct.unpack('>4sLLL', data[at:at + 16])
        if offset + length > size:
            fail(CORRUPT, 'table %r runs past the end of the file' % name.decode('latin-1'))


def bounded_woff_table(self, raw):
    """fontTools' WOFF table decoder, but inflating no more than the table declares."""
    if self.length == self.origLength:
        return raw
    inflater = zlib.decompressobj()
    data = inflater.decompress(raw, self.origLength + 1)
    if len(data) != self.origLength:
        raise TTLibError('table %s inflates to a size other than the %d bytes declared' % (self.tag, self.origLength))
    return data


# Tables every font needs to be drawn and laid out at all (OpenType's required set, less the
# ones a web font can do without).
REQUIRED = ('head', 'hhea', 'hmtx', 'maxp', 'cmap')


def load(path):
    font = TTFont(path, recalcTimestamp=False)
    missing = [tag for tag in REQUIRED if tag not in font]
    if missing:
        fail(CORRUPT, 'the font has no %s table' % ', '.join(repr(tag) for tag in missing))
    # Every table read now, each glyph too: a broken one is the input's fault, found here rather
    # than half-way through writing.
    for tag in font.keys():
        font[tag]
    if font['head'].magicNumber != 0x5F0F3CF5:
        fail(CORRUPT, "the 'head' table is damaged (wrong magic number)")
    if 'glyf' in font:
        if 'loca' in font and font.reader is not None and 'glyf' in font.reader:
            # fontTools reads glyphs past the end of 'glyf' as empty ones: a damaged 'loca' would
            # silently blank them.
            locations = font['loca'].locations
            end = len(font.reader['glyf'])
            if any(b < a for a, b in zip(locations, locations[1:])) or (locations and locations[-1] > end):
                fail(CORRUPT, "the 'loca' table points outside the 'glyf' table")
        glyf = font['glyf']
        for name in font.getGlyphOrder():
            glyf[name].expand(glyf)
    return font


def cff_to_truetype(font):
    """CFF cubic outlines to TrueType quadratic ones with fontTools' cu2qu: each curve split until
    within 1 font unit of the original (fontTools' own otf2ttf recipe). PostScript hints are lost."""
    from fontTools.pens.cu2quPen import Cu2QuPen
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    if 'CFF2' in font or 'fvar' in font:
        fail(UNSUPPORTED, 'variable CFF2 outlines cannot be converted to TrueType here')
    order = font.getGlyphOrder()
    glyph_set = font.getGlyphSet()
    glyphs = {}
    for name in order:
        pen = TTGlyphPen(glyph_set)
        glyph_set[name].draw(Cu2QuPen(pen, 1.0, reverse_direction=True))
        glyphs[name] = pen.glyph()
    font['loca'] = newTable('loca')
    glyf = font['glyf'] = newTable('glyf')
    glyf.glyphOrder = order
    glyf.glyphs = glyphs
    del font['CFF ']
    if 'VORG' in font:
        del font['VORG']
    glyf.compile(font)
    hmtx = font['hmtx']
    for name, glyph in glyphs.items():
        if hasattr(glyph, 'xMin'):
            hmtx[name] = (hmtx[name][0], glyph.xMin)
    maxp = font['maxp'] = newTable('maxp')
    maxp.tableVersion = 0x00010000
    for field in ('maxZones',):
        setattr(maxp, field, 1)
    for field in ('maxTwilightPoints', 'maxStorage', 'maxFunctionDefs', 'maxInstructionDefs',
                  'maxStackElements', 'maxSizeOfInstructions'):
        setattr(maxp, field, 0)
    maxp.maxComponentElements = max((len(getattr(g, 'components', [])) for g in glyphs.values()), default=0)
    maxp.compile(font)
    post = font['post']
    post.formatType = 2.0
    post.extraNames = []
    post.mapping = {}
    post.glyphOrder = order
    font.sfntVersion = '\x00\x01\x00\x00'


# Tables that only mean something next to TrueType outlines and their instructions.
TRUETYPE_ONLY = ('glyf', 'loca', 'fpgm', 'prep', 'cvt ', 'hdmx', 'LTSH', 'VDMX', 'gasp')


def truetype_to_cff(font):
    """TrueType quadratic outlines to CFF cubic ones. Exact: every quadratic curve is a cubic one
    (control points at 2/3), rounded to whole font units; contours are reversed to PostScript's
    winding and TrueType hinting is dropped."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.reverseContourPen import ReverseContourPen
    from fontTools.pens.t2CharStringPen import T2CharStringPen

    if 'gvar' in font or 'fvar' in font:
        fail(UNSUPPORTED, 'variable TrueType outlines cannot be converted to CFF here')
    glyph_set = font.getGlyphSet()
    hmtx = font['hmtx']
    charstrings = {}
    for name in font.getGlyphOrder():
        pen = T2CharStringPen(hmtx[name][0], glyph_set)
        # PostScript outlines wind the other way round from TrueType ones.
        glyph_set[name].draw(ReverseContourPen(pen))
        charstrings[name] = pen.getCharString()
    names = font['name']
    family = names.getDebugName(1) or 'Untitled'
    full = names.getDebugName(4) or family
    ps_name = names.getDebugName(6) or ''.join(full.split()) or 'Untitled'
    for tag in TRUETYPE_ONLY:
        if tag in font:
            del font[tag]
    builder = FontBuilder(font=font, isTTF=False)
    builder.setupCFF(ps_name, {'FullName': full, 'FamilyName': family}, charstrings, {})
    maxp = font['maxp']
    maxp.tableVersion = 0x00005000
    font.sfntVersion = 'OTTO'


def main():
    with open(SOURCE, 'rb') as handle:
        check_layout(handle.read())
    sfnt.WOFFDirectoryEntry.decodeData = bounded_woff_table
    try:
        font = load(SOURCE)
    except MemoryError:
        fail(LIMIT, 'the font inflates past the memory limit')
    except SystemExit:
        raise
    except Exception as error:
        fail(CORRUPT, 'the font cannot be read: %s' % (str(error) or type(error).__name__))
    rewrap = TARGET in ('woff', 'woff2') or (
        'glyf' in font if TARGET == 'ttf' else 'CFF ' in font or 'CFF2' in font)
    if rewrap:
        # Only the wrapping changes: written from a fresh, lazy reading, so every table goes out
        # byte for byte as it came in (fontTools recompiles the tables it has read, which
        # reorders lookups and picks other cmap subtables: the same font, not the same bytes).
        del font
        try:
            font = TTFont(SOURCE, recalcTimestamp=False, recalcBBoxes=False)
        except MemoryError:
            fail(LIMIT, 'the font inflates past the memory limit')
    elif TARGET == 'ttf' and 'glyf' not in font:
        if 'CFF ' not in font and 'CFF2' not in font:
            fail(UNSUPPORTED, 'the font has no outlines to convert')
        cff_to_truetype(font)
    elif TARGET == 'otf' and 'CFF ' not in font:
        if 'glyf' not in font:
            fail(UNSUPPORTED, 'the font has no outlines to convert' if 'CFF2' not in font
                 else 'variable CFF2 outlines cannot be written as CFF here')
        truetype_to_cff(font)
    font.flavor = TARGET if TARGET in ('woff', 'woff2') else None
    try:
        font.save(TARGET_PATH)
    except MemoryError:
        fail(LIMIT, 'the font needs more memory than the limit allows')
    except Exception as error:
        # Tables fontTools read but cannot write back disagree with each other (a glyph count
        # in 'maxp' that 'loca' does not have, an index past a table's end).
        fail(CORRUPT, "the font's tables are inconsistent: %s" % (str(error) or type(error).__name__))


main()
`;
