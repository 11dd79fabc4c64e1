adjudicate probes.csv --explain -f json
