adjudicate probes.csv --witness
