adjudicate probes.csv --explain --witness -f csv
