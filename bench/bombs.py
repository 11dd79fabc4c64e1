#!/usr/bin/env python3
"""Writes the workbook bombs bench/bombs.sh runs leasejudge on: small files that inflate to far
more than leasejudge lets a workbook inflate to (docs/safety.md, "Limits"). Each is a workbook
whose first row is a case file's header (so every command reads on into the bomb); the zip
sizes are declared truthfully (the tests build archives that lie about them too).

    bench/bombs.py DIR [SIZE_MB]      # SIZE_MB (default 600): what each bomb inflates to
"""
import os
import sys
import zipfile
import zlib

HEADER = ["case_id", "event", "observed_at", "job_id", "lease_id", "generation", "holder",
          "lease_duration"]
ROW = ["c1", "offer", "2026-01-01T00:00:00Z", "j", "L", "1", "w", "30"]
CHUNK = 1 << 20


def cells(row, number):
    return "".join(
        f'<c r="{chr(65 + i)}{number}" t="inlineStr"><is><t>{v}</t></is></c>' for i, v in enumerate(row))


def header_rows():
    return f'<row r="1">{cells(HEADER, 1)}</row><row r="2">{cells(ROW, 2)}</row>'


def write_streamed(zf, name, pieces):
    """Writes a part from an iterable of byte strings, deflated as it goes."""
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    with zf.open(info, "w", force_zip64=True) as out:
        for piece in pieces:
            out.write(piece)


def repeat(unit, total):
    block = unit * max(1, CHUNK // len(unit))
    written = 0
    while written < total:
        yield block
        written += len(block)


def xlsx(path, sheet, shared=None, styles=None, extra=None):
    workbook = ('<workbook xmlns:r="r"><sheets><sheet name="Bomb" sheetId="1" r:id="rId1"/>'
                '</sheets></workbook>')
    rels = ('<Relationships><Relationship Id="rId1" Type="t" Target="worksheets/sheet1.xml"/>'
            '</Relationships>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("xl/workbook.xml", workbook)
        zf.writestr("xl/_rels/workbook.xml.rels", rels)
        if extra:
            write_streamed(zf, extra[0], extra[1])
        if styles:
            write_streamed(zf, "xl/styles.xml", styles)
        if shared:
            write_streamed(zf, "xl/sharedStrings.xml", shared)
        write_streamed(zf, "xl/worksheets/sheet1.xml", sheet)


def repeat_then(unit, total, tail):
    yield from repeat(unit, total)
    yield tail


def sheet(head, middle=()):
    yield f"<worksheet><sheetData>{header_rows()}".encode()
    yield from head
    yield from middle
    yield b"</sheetData></worksheet>"


def main():
    out = sys.argv[1]
    size = int(sys.argv[2] if len(sys.argv) > 2 else 600) * 1000 * 1000
    os.makedirs(out, exist_ok=True)
    # One huge cell, the rest ordinary (what the attack found).
    xlsx(f"{out}/cell.xlsx", sheet(
        [b'<row r="3"><c r="A3" t="inlineStr"><is><t>'], repeat_then(b"x", size, b"</t></is></c></row>")))
    # Millions of empty rows, a dimension of the whole sheet, a row at the last place.
    xlsx(f"{out}/empty-rows.xlsx", (piece for part in (
        [b'<worksheet><dimension ref="A1:XFD1048576"/><sheetData>',
         header_rows().encode()],
        repeat(b'<row r="1048576"/>', size),
        [b"</sheetData></worksheet>"]) for piece in part))
    # A sheet of SIZE of nothing (comments): stopped at 256 MiB inflated.
    xlsx(f"{out}/inflated.xlsx", sheet([], repeat(b"<!--" + b"x" * 1000 + b"-->", size)))
    # A column reference far past the last column.
    xlsx(f"{out}/far-column.xlsx", sheet([b'<row r="3"><c r="ZZZZZZZZZZZZ3"><v>1</v></c></row>']))
    # Shared strings that inflate without end; and one long string used by every row.
    xlsx(f"{out}/shared-strings.xlsx", sheet([]), shared=(piece for part in (
        [b"<sst>"], repeat(b"<si><t>s</t></si>", size), [b"</sst>"]) for piece in part))
    long = "y" * 400_000
    rows = "".join(
        f'<row r="{n}"><c r="A{n}" t="inlineStr"><is><t>c{n}</t></is></c><c r="B{n}" t="s"><v>0</v></c></row>'
        for n in range(3, 3 + 2000))
    xlsx(f"{out}/shared-reused.xlsx", sheet([rows.encode()]),
         shared=[f"<sst><si><t>{long}</t></si></sst>".encode()])
    # Styles that inflate without end.
    xlsx(f"{out}/styles.xlsx", sheet([]), styles=(piece for part in (
        [b"<styleSheet><cellXfs>"], repeat(b'<xf numFmtId="14"/>', size),
        [b"</cellXfs></styleSheet>"]) for piece in part))
    # A part the sheet does not need, inflating to SIZE: never read (the run succeeds).
    xlsx(f"{out}/unused-part.xlsx", sheet([]),
         extra=("xl/media/image1.png", repeat(b"\0", size)))
    # An .ods: one huge cell; and a row of repeated cells repeated a million times.
    def ods(path, table):
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
            zf.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
            zf.writestr("META-INF/manifest.xml", "<manifest:manifest/>")
            write_streamed(zf, "content.xml", (piece for part in (
                [b'<office:document-content><office:body><office:spreadsheet>'
                 b'<table:table table:name="Bomb">'],
                table,
                [b"</table:table></office:spreadsheet></office:body></office:document-content>"])
                for piece in part))

    def ods_row(values):
        return "<table:table-row>" + "".join(
            f'<table:table-cell office:value-type="string"><text:p>{v}</text:p></table:table-cell>'
            for v in values) + "</table:table-row>"

    ods(f"{out}/ods-cell.ods", (piece for part in (
        [(ods_row(HEADER) + ods_row(ROW)).encode(),
         b'<table:table-row><table:table-cell office:value-type="string"><text:p>'],
        repeat(b"x", size),
        [b"</text:p></table:table-cell></table:table-row>"]) for piece in part))
    ods(f"{out}/ods-repeated.ods", [(ods_row(HEADER) + ods_row(ROW)).encode(),
        b'<table:table-row table:number-rows-repeated="1048000">'
        b'<table:table-cell table:number-columns-repeated="16000" office:value-type="string" '
        b'office:string-value="repeated"/></table:table-row>'])


if __name__ == "__main__":
    main()
