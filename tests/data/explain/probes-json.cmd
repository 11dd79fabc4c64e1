explain probes.csv --format json
