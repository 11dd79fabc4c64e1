explain probes.csv --case probe-9,probe-1 --case other
