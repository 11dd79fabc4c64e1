validate inputs/mixed.csv inputs/warnings.json
