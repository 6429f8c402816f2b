#!/usr/bin/env bash
# Writes the older and adjacent office fixtures with LibreOffice's own export filters (an engine
# independent of fileconv), from the ODF fixtures and the flat ODG source in scripts/office:
#   fixture.fodt .fods .fodp  flat OpenDocument XML
#   fixture.xmlss             Excel 2003 XML (SpreadsheetML; Excel would call it .xml)
#   fixture.slk               SYLK
#   fixture.dbf               dBase, UTF-8 (needs libreoffice-base-drivers: the dBase driver)
#   fixture.ppsx              PowerPoint slide show
#   fixture.odg .emf .wmf     a Draw drawing and its metafile exports
# Run from the repository root; needs soffice (libreoffice-*-nogui, libreoffice-base-drivers).
set -euo pipefail
out=$(mktemp -d)
profile=$(mktemp -d)
trap 'rm -rf "$out" "$profile"' EXIT
convert() { # <source> <extension> <LibreOffice export filter[:options]> [fixture extension]
  soffice -env:UserInstallation="file://$profile" --headless --convert-to "$2:$3" --outdir "$out" "$1" >/dev/null
  mv "$out/$(basename "${1%.*}").$2" "fixtures/fixture.${4:-$2}"
}
convert fixtures/fixture.odt fodt 'OpenDocument Text Flat XML'
convert fixtures/fixture.ods fods 'OpenDocument Spreadsheet Flat XML'
convert fixtures/fixture.odp fodp 'OpenDocument Presentation Flat XML'
convert fixtures/fixture.ods xml 'MS Excel 2003 XML' xmlss
convert fixtures/fixture.ods slk 'SYLK'
convert fixtures/fixture.ods dbf 'dBase:76' # 76: UTF-8; the first sheet only, as dBase holds one table
convert fixtures/fixture.odp ppsx 'Impress MS PowerPoint 2007 XML AutoPlay'
convert scripts/office/fixture.fodg odg 'draw8'
convert fixtures/fixture.odg emf 'draw_emf_Export'
convert fixtures/fixture.odg wmf 'draw_wmf_Export'
ls -l fixtures/fixture.{fodt,fods,fodp,xmlss,slk,dbf,ppsx,odg,emf,wmf}
