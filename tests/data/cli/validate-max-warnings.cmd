validate inputs/warnings.csv inputs/warnings.json --max-warnings 3
