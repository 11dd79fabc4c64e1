adjudicate probes.csv --explain -f table
