explain tests/data/explain/probes.csv
