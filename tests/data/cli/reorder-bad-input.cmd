reorder inputs/mixed.csv --permutations 5
