adjudicate tests/data/explain/every-reason.ndjson --explain -f csv
