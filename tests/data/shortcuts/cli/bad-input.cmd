shortcuts inputs/bad.csv --suggest catch.csv
