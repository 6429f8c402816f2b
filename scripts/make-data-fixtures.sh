#!/usr/bin/env bash
# Makes the subtitle and data fixtures (fixtures/fixture.{srt,vtt,ass,ssa,jsonl,yaml,toml,xml,ics,vcf} and
# the bad-input samples in fixtures/bad/) with tools independent of fileconv: the SubRip file is
# written by hand here, ffmpeg turns it into WebVTT and ASS (SSA is hand-written); python3's standard
# library writes the JSON Lines, TOML, XML, iCalendar and vCard files, PyYAML (python3-yaml) the YAML. Run from the
# repository root: scripts/make-data-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=fixtures
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Three cues, one in italics and one in bold (SubRip's only styling), UTF-8 with an accent.
cat >"$out/fixture.srt" <<'EOF'
1
00:00:00,500 --> 00:00:02,000
Hello, subtitles.

2
00:00:02,500 --> 00:00:04,000
<i>Second line, in italics.</i>

3
00:00:04,500 --> 00:00:05,800
<b>Café</b> at the end.
EOF

ffmpeg -nostdin -v error -y -i "$out/fixture.srt" -c:s webvtt "$out/fixture.vtt"
ffmpeg -nostdin -v error -y -i "$out/fixture.srt" -c:s ass "$out/fixture.ass"
# SSA is ASS's v4.00 predecessor; ffmpeg writes only ASS headers, so it is written by hand, in
# CRLF as the SubStation Alpha program wrote it, with a second, yellow bold style.
sed 's/$/\r/' >"$out/fixture.ssa" <<'EOF'
[Script Info]
Title: fileconv fixture
ScriptType: v4.00
PlayResX: 384
PlayResY: 288

[V4 Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, TertiaryColour, BackColour, Bold, Italic, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, AlphaLevel, Encoding
Style: Default,Arial,16,16777215,65535,0,0,0,0,1,1,0,2,10,10,10,0,0
Style: Yellow,Arial,18,65535,65535,0,0,-1,0,1,1,0,6,10,10,10,0,0

[Events]
Format: Marked, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: Marked=0,0:00:00.50,0:00:02.00,Default,,0000,0000,0000,,Hello, subtitles.
Dialogue: Marked=0,0:00:02.50,0:00:04.00,Default,,0000,0000,0000,,{\i1}Second line, in italics.{\i0}
Dialogue: Marked=0,0:00:04.50,0:00:05.80,Yellow,,0000,0000,0000,,Café at the end.
EOF

python3 - "$out" <<'EOF'
import sys, json, yaml
from xml.etree import ElementTree as ET
out = sys.argv[1]
people = [
    {"name": "Ada Lovelace", "born": 1815, "languages": ["English", "French"], "active": True},
    {"name": "Émile Borel", "born": 1871, "languages": ["French"], "active": False},
]
with open(f"{out}/fixture.jsonl", "w", encoding="utf-8") as f:
    f.write("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in people))
# TOML by hand (python3's tomllib only reads): an array of tables, as Cargo and pyproject write them.
with open(f"{out}/fixture.toml", "w", encoding="utf-8") as f:
    f.write("# People, as TOML\n")
    for p in people:
        langs = ", ".join(json.dumps(lang, ensure_ascii=False) for lang in p["languages"])
        f.write(f'\n[[people]]\nname = {json.dumps(p["name"], ensure_ascii=False)}\nborn = {p["born"]}\n')
        f.write(f'languages = [{langs}]\nactive = {"true" if p["active"] else "false"}\n')
with open(f"{out}/fixture.yaml", "w", encoding="utf-8") as f:
    f.write("# People, as YAML (written by PyYAML)\n")
    yaml.safe_dump({"people": people}, f, allow_unicode=True, sort_keys=False)

root = ET.Element("people")
for p in people:
    e = ET.SubElement(root, "person", {"born": str(p["born"])})
    ET.SubElement(e, "name").text = p["name"]
    for lang in p["languages"]:
        ET.SubElement(e, "language").text = lang
ET.indent(root)
ET.ElementTree(root).write(f"{out}/fixture.xml", encoding="utf-8", xml_declaration=True)

def fold(line):
    # RFC 5545/6350: lines longer than 75 octets continue on the next line after a space.
    data = line.encode("utf-8")
    parts = []
    while len(data) > 75:
        cut = 75
        while (data[cut] & 0xC0) == 0x80:
            cut -= 1
        parts.append(data[:cut].decode("utf-8"))
        data = data[cut:]
    parts.append(data.decode("utf-8"))
    return "\r\n ".join(parts)

ics = [
    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//fileconv fixtures//python3//EN",
    "BEGIN:VEVENT", "UID:1@fixtures", "DTSTAMP:20240101T000000Z",
    "DTSTART:20240315T090000Z", "DTEND:20240315T103000Z",
    "SUMMARY:Planning meeting\\, first quarter", "LOCATION:Room 4",
    "DESCRIPTION:" + "Agenda: budget\\nthen the roadmap for the next release of the product, which runs long.",
    "END:VEVENT",
    "BEGIN:VEVENT", "UID:2@fixtures", "DTSTAMP:20240101T000000Z",
    "DTSTART;VALUE=DATE:20240401", "DTEND;VALUE=DATE:20240402",
    "SUMMARY:Café day", "END:VEVENT",
    "END:VCALENDAR",
]
with open(f"{out}/fixture.ics", "w", encoding="utf-8", newline="") as f:
    f.write("".join(fold(line) + "\r\n" for line in ics))

vcf = [
    "BEGIN:VCARD", "VERSION:3.0", "N:Lovelace;Ada;;;", "FN:Ada Lovelace",
    "EMAIL;TYPE=INTERNET,WORK:ada@example.org", "EMAIL;TYPE=HOME:ada.home@example.org",
    "TEL;TYPE=CELL:+44 20 7946 0000", "ORG:Analytical Engines", "END:VCARD",
    "BEGIN:VCARD", "VERSION:4.0", "FN:Émile Borel", "TEL;VALUE=uri;TYPE=work:tel:+33-1-55-55-55-55",
    "END:VCARD",
]
with open(f"{out}/fixture.vcf", "w", encoding="utf-8", newline="") as f:
    f.write("".join(fold(line) + "\r\n" for line in vcf))
EOF

# Bad inputs: a YAML alias bomb (billion laughs), an XML entity bomb, an XML external entity
# (XXE), JSON that is not a table, a truncated subtitle file and an 8-bit (windows-1252) SubRip.
mkdir -p "$out/bad"
python3 - "$out/bad" <<'EOF'
import sys
bad = sys.argv[1]
lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
for i in range(1, 9):
    prev = chr(ord("a") + i - 1)
    cur = chr(ord("a") + i)
    lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
open(f"{bad}/yaml-bomb.yaml", "w").write("\n".join(lines) + "\n")

ents = ['<!ENTITY lol "lol">'] + [
    f'<!ENTITY lol{i} "' + f"&lol{i-1 if i > 1 else ''};" * 10 + '">' for i in range(1, 10)
]
open(f"{bad}/xml-bomb.xml", "w").write(
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n' + "\n".join(ents) + "\n]>\n<lolz>&lol9;</lolz>\n"
)
open(f"{bad}/xml-xxe.xml", "w").write(
    '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<r>&x;</r>\n'
)
open(f"{bad}/not-tabular.json", "w").write('{"name": "not rows", "items": {"a": 1}}\n')
EOF
head -c 92 "$out/fixture.srt" >"$out/bad/truncated.srt"
printf '1\r\n00:00:01,000 --> 00:00:02,000\r\nCaf\xe9 cr\xe8me\r\n' >"$out/bad/cp1252.srt"
