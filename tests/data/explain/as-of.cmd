explain probes.csv --case probe-2 --as-of 2026-01-01T12:00:00Z
