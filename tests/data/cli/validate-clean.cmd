validate inputs/clean.csv
