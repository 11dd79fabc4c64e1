explain probes.csv --case probe-2,probe-4 --witness --as-of 2026-01-01T12:00:00Z
