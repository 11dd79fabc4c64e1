#!/usr/bin/env python3
"""Writes the hostile shapes bench/hostile.sh runs leasejudge on (issue 28, "Memory"): inputs
whose size is in the number of problems, rows, columns or bytes of one line rather than in the
number of cases, each made once in DIR (an existing file is kept).

    bench/hostile.py DIR SHAPE N

Shapes:
    bad     N malformed rows (a generation that is no number), each of its own case
    badkey  a matrix of N rows, each with a cell more than its header: malformed as a key and as
            a submission
    one     one case of N rows: an offer, an ack, then progress
    wide    2 rows of a case with N distinct extra columns
    line    one case whose `note` column holds N bytes on one line
    class   a directory of N two-line submissions (a header and one answer each)
"""
import os
import sys

HEADER = ("case_id,event,observed_at,job_id,lease_id,generation,holder,issued_at,"
          "lease_duration,expires_at,ack_deadline,renew_seq,progress_seq,progress_value,"
          "result,sent_at\n")
CHUNK = 1 << 16


def write(path, head, rows):
    """Writes `head`, then the strings of `rows`, to `path` (through a temporary name, so that
    an interrupted run leaves no half-made shape to be taken for a whole one)."""
    if os.path.exists(path):
        return
    partial = path + ".partial"
    with open(partial, "w") as out:
        out.write(head)
        buffer = []
        for row in rows:
            buffer.append(row)
            if len(buffer) >= CHUNK:
                out.write("".join(buffer))
                buffer.clear()
        out.write("".join(buffer))
    os.replace(partial, path)


def bad(n):
    return (f"c{i},offer,2026-01-01T00:00:00Z,j{i},L{i},notanumber,w,,30,,,,,,,\n" for i in range(n))


def badkey(n):
    return (f"c{i},ACTIVE,within_lease,extra\n" for i in range(n))


def one(n):
    yield "big,offer,2026-01-01T00:00:00Z,j,L,1,w,,600000000,,,,,,,\n"
    yield "big,ack,2026-01-01T00:00:01Z,,L,1,w,,,,,,,,,\n"
    for i in range(2, n):
        yield f"big,progress,2026-01-01T00:00:02Z,,L,1,w,,,,,,{i},{i},,\n"


def wide(n):
    extra = "".join(f",x{i}" for i in range(n))
    head = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration" + extra + "\n"
    cells = "," * n
    rows = [f"c1,offer,2026-01-01T00:00:00Z,j,L,1,w,30{cells}\n",
            f"c1,ack,2026-01-01T00:00:01Z,,L,1,w,{cells}\n"]
    return head, rows


def line(n):
    head = "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,note\n"
    note = "n" * n
    return head, ["c1,offer,2026-01-01T00:00:00Z,j,L,1,w,30,", note, "\n",
                  "c1,ack,2026-01-01T00:00:01Z,,L,1,w,,\n"]


def klass(directory, n):
    """N submissions of one answer each (`s00000.csv`, ...), in `directory`."""
    if os.path.isdir(directory):
        return
    partial = directory + ".partial"
    os.makedirs(partial, exist_ok=True)
    for i in range(n):
        with open(os.path.join(partial, f"s{i:06d}.csv"), "w") as out:
            out.write(f"case_id,decision,reason\nc{i % 1000},ACTIVE,within_lease\n")
    os.replace(partial, directory)


def main():
    directory, shape, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{shape}-{n}.csv")
    if shape == "bad":
        write(path, HEADER, bad(n))
    elif shape == "badkey":
        write(path, "case_id,decision,reason\n", badkey(n))
    elif shape == "one":
        write(path, HEADER, one(n))
    elif shape == "wide":
        head, rows = wide(n)
        write(path, head, rows)
    elif shape == "line":
        head, rows = line(n)
        write(path, head, rows)
    elif shape == "class":
        klass(os.path.join(directory, f"class-{n}"), n)
    else:
        sys.exit(f"unknown shape {shape!r}")


if __name__ == "__main__":
    main()
