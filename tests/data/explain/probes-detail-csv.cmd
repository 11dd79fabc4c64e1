adjudicate tests/data/explain/probes.csv --explain -f csv
