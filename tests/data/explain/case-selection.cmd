explain probes.csv --case probe-3,probe-2
