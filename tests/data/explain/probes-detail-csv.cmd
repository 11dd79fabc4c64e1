adjudicate probes.csv --explain -f csv
