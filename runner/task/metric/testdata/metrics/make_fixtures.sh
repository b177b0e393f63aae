#!/bin/sh
# Makes the metric fixtures of this folder: deck.pptx by make_pptx.py
# (standard library only) and deck-lo.pptx, the same deck saved by
# LibreOffice Impress (soffice headless), as a task's result would be.
set -eu
cd "$(dirname "$0")"
/usr/bin/python3 make_pptx.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp deck.pptx "$tmp/deck-lo.odp.pptx"
soffice -env:UserInstallation=file://"$tmp"/profile --headless --convert-to odp --outdir "$tmp" "$tmp/deck-lo.odp.pptx" >/dev/null
soffice -env:UserInstallation=file://"$tmp"/profile --headless --convert-to pptx:"Impress MS PowerPoint 2007 XML" --outdir "$tmp" "$tmp/deck-lo.odp.odp" >/dev/null
mv "$tmp/deck-lo.odp.pptx" deck-lo.pptx

# Audio: a quarter second of sine with ID3v2.4 (UTF-8) and ID3v2.3 (UTF-16)
# title and artist tags, and one with no tag at all.
ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=0.25" -ac 1 -ar 8000 -b:a 16k \
	-metadata title="Missing You" -metadata artist="Cheng Xiang" -metadata album="歌" -id3v2_version 4 tagged-v24.mp3
ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=0.25" -ac 1 -ar 8000 -b:a 16k \
	-metadata title="Tears of Dancing Girl" -metadata artist="Han Baoyi" -metadata album="歌" -id3v2_version 3 tagged-v23.mp3
ffmpeg -v error -y -f lavfi -i "sine=frequency=440:duration=0.25" -ac 1 -ar 8000 -b:a 16k \
	-id3v2_version 0 -write_xing 0 untagged.mp3
