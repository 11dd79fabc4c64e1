explain probes.csv --witness --format json
