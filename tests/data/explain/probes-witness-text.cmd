explain probes.csv --witness
