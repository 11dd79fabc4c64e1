validate inputs/warnings.csv inputs/warnings.json
