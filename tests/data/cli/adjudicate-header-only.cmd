adjudicate inputs/header-only.csv -f csv
