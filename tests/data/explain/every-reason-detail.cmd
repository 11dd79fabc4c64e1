adjudicate every-reason.ndjson --explain -f csv
