#!/bin/sh
# Regenerates the OCR fixtures in fixtures/ocr/ (run from the repository root:
# `sh scripts/make-ocr-fixtures.sh`). Needs ImageMagick (text rendered with the DejaVu Serif
# font of fonts-dejavu-core; it also writes the page's JPEG), python3 (standard library only) to
# wrap that JPEG into a PDF, since Debian's ImageMagick refuses to write PDF (its security
# policy) and img2pdf is not installed here, and pdftotext (poppler-utils) to check the result.
# The committed files are what tests use; this script documents how they were made.
#
# - sentence.png: 'The quick brown fox jumps over the lazy dog 1234' at 14 pt, 300 DPI, turned
#   0.8 degrees with Gaussian noise and 8 grey levels, as a flatbed scan of a printout looks.
# - satz-deu.png: the German pangram with umlauts and eszett, same treatment (tests `languages`).
# - scanned.pdf: a quarter-letter page (4.25 x 2.75 in) at 300 DPI holding the English sentence
#   on two lines as a JPEG, and nothing else: no text layer (pdftotext prints nothing).
set -eu

out=fixtures/ocr
mkdir -p "$out"
font=DejaVu-Serif

scan() { # scan <text> <file>: render, turn, add noise, reduce to grey levels
  convert -density 300 -units PixelsPerInch -background white -fill black -font "$font" \
    -pointsize 14 label:"$1" -bordercolor white -border 60 -background white -rotate 0.8 \
    -flatten -attenuate 0.4 +noise Gaussian -colorspace Gray -posterize 8 -depth 8 \
    -strip "$2"
}

scan 'The quick brown fox jumps over the lazy dog 1234' "$out/sentence.png"
scan 'Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich' "$out/satz-deu.png"

# The page: 1275 x 825 px is 4.25 x 2.75 in at 300 DPI.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
convert -density 300 -units PixelsPerInch -size 1275x825 xc:white -font "$font" -pointsize 14 \
  -fill black -annotate +150+300 'The quick brown fox jumps' \
  -annotate +150+420 'over the lazy dog 1234' -rotate 0.6 -gravity center -extent 1275x825 \
  -attenuate 0.4 +noise Gaussian -colorspace Gray -depth 8 -strip -quality 60 \
  -sampling-factor 1x1 "$tmp/page.jpg"

python3 - "$tmp/page.jpg" "$out/scanned.pdf" <<'PY'
# A one-page PDF whose only content is the JPEG (DCTDecode, passed through as it is), drawn over
# the whole page: page size = pixels * 72 / 300.
import struct, sys
jpeg = open(sys.argv[1], 'rb').read()
i = 2
while True:  # find the SOF marker for the size
    marker, length = jpeg[i + 1], struct.unpack('>H', jpeg[i + 2:i + 4])[0]
    if marker in (0xC0, 0xC1, 0xC2):
        height, width = struct.unpack('>HH', jpeg[i + 5:i + 9])
        break
    i += 2 + length
w, h = width * 72 / 300, height * 72 / 300
content = f'q {w:.2f} 0 0 {h:.2f} 0 0 cm /Im0 Do Q'.encode()
objects = [
    b'<< /Type /Catalog /Pages 2 0 R >>',
    b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    f'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w:.2f} {h:.2f}] '
    f'/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>'.encode(),
    f'<< /Type /XObject /Subtype /Image /Width {width} /Height {height} /ColorSpace /DeviceGray '
    f'/BitsPerComponent 8 /Filter /DCTDecode /Length {len(jpeg)} >>\nstream\n'.encode()
    + jpeg + b'\nendstream',
    f'<< /Length {len(content)} >>\nstream\n'.encode() + content + b'\nendstream',
]
pdf = bytearray(b'%PDF-1.4\n%\xe2\xe3\xcf\xd3\n')
offsets = []
for number, body in enumerate(objects, 1):
    offsets.append(len(pdf))
    pdf += f'{number} 0 obj\n'.encode() + body + b'\nendobj\n'
xref = len(pdf)
pdf += f'xref\n0 {len(objects) + 1}\n0000000000 65535 f \n'.encode()
pdf += b''.join(f'{offset:010d} 00000 n \n'.encode() for offset in offsets)
pdf += f'trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n'.encode()
open(sys.argv[2], 'wb').write(pdf)
PY

# The scan must have no text layer, or the OCR tests would prove nothing.
if [ -n "$(pdftotext "$out/scanned.pdf" - | tr -d '[:space:]\f')" ]; then
  echo "scanned.pdf has a text layer" >&2
  exit 1
fi
