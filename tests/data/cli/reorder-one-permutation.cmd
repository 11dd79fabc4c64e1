reorder inputs/transport.csv --permutations 1 --seed 99
