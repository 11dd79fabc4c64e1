explain probes.csv
