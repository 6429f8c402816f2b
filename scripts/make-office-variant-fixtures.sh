#!/usr/bin/env bash
# Writes the Office template and macro-enabled fixtures (fixtures/fixture.{ott,dotx,docm,ots,xltx,
# xlsm,otp,potx,pptm}) from the ODF fixtures with LibreOffice's own export filters, so the files
# are made by an independent tool, not by fileconv. Run from the repository root; needs soffice.
set -euo pipefail
out=$(mktemp -d)
profile=$(mktemp -d)
trap 'rm -rf "$out" "$profile"' EXIT
convert() { # <source fixture> <extension> <LibreOffice export filter>
  soffice -env:UserInstallation="file://$profile" --headless --convert-to "$2:$3" --outdir "$out" "$1" >/dev/null
  mv "$out/$(basename "${1%.*}").$2" "fixtures/fixture.$2"
}
convert fixtures/fixture.odt ott 'writer8_template'
convert fixtures/fixture.odt dotx 'MS Word 2007 XML Template'
convert fixtures/fixture.odt docm 'MS Word 2007 XML VBA'
convert fixtures/fixture.ods ots 'calc8_template'
convert fixtures/fixture.ods xltx 'Calc MS Excel 2007 XML Template'
convert fixtures/fixture.ods xlsm 'Calc MS Excel 2007 VBA XML'
convert fixtures/fixture.odp otp 'impress8_template'
convert fixtures/fixture.odp potx 'Impress MS PowerPoint 2007 XML Template'
convert fixtures/fixture.odp pptm 'Impress MS PowerPoint 2007 XML VBA'
ls -l fixtures/fixture.{ott,dotx,docm,ots,xltx,xlsm,otp,potx,pptm}
