"""Writes the .ods fixtures beside this file from golden matrices, with odfpy (PyPI), the way
LibreOffice Calc stores a typed sheet: integers as float cells, timestamps as date cells (an
instant without an offset, as Calc keeps them), booleans as boolean cells, the rest as text.
A first sheet of notes comes before the matrix sheet, so the test needs --sheet Matrix.

    python3 -m venv /tmp/odfenv && /tmp/odfenv/bin/pip install odfpy==1.4.1
    /tmp/odfenv/bin/python tests/data/spreadsheets/make_ods.py
"""

import csv
import os
import re

from odf.opendocument import OpenDocumentSpreadsheet
from odf.table import Table, TableCell, TableRow
from odf.text import P

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "..", "..", "golden")
TIMESTAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)Z$")


def cell(text):
    if text == "":
        return TableCell()
    if re.fullmatch(r"\d+", text):
        c = TableCell(valuetype="float", value=text)
    elif text in ("true", "false"):
        c = TableCell(valuetype="boolean", booleanvalue=text)
        text = text.upper()
    elif TIMESTAMP.match(text):
        c = TableCell(valuetype="date", datevalue=TIMESTAMP.match(text).group(1))
        text = text[:-1].replace("T", " ")
    else:
        c = TableCell(valuetype="string")
    c.addElement(P(text=text))
    return c


def write(name):
    with open(os.path.join(GOLDEN, name + ".csv"), newline="") as f:
        rows = list(csv.reader(f))
    doc = OpenDocumentSpreadsheet()
    notes = Table(name="Notes")
    row = TableRow()
    row.addElement(cell("Filled in with LibreOffice-style typed cells"))
    notes.addElement(row)
    doc.spreadsheet.addElement(notes)
    matrix = Table(name="Matrix")
    for values in rows:
        row = TableRow()
        for value in values:
            row.addElement(cell(value))
        matrix.addElement(row)
    doc.spreadsheet.addElement(matrix)
    doc.save(os.path.join(HERE, name + ".ods"))


for name in ("probes", "lesson-headings"):
    write(name)
