validate inputs/header-only.csv
