explain tests/data/explain/hostile.csv
