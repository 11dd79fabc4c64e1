check cases.csv --golden golden.csv
