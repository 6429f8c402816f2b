#!/usr/bin/env bash
# Regenerates the office fixtures from the flat OpenDocument sources in scripts/office with
# LibreOffice (Debian: libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui).
# fixture.key is not made here: LibreOffice imports Keynote but cannot write it (see make-keynote-fixture).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../fixtures"
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
convert() { soffice "-env:UserInstallation=file://$profile" --headless --convert-to "$1" --outdir "$out" "$2"; }
for target in docx 'doc:MS Word 97' odt pdf epub; do convert "$target" "$here/office/fixture.fodt"; done
for target in xlsx 'xls:MS Excel 97' ods; do convert "$target" "$here/office/fixture.fods"; done
for target in pptx 'ppt:MS PowerPoint 97' odp; do convert "$target" "$here/office/fixture.fodp"; done
