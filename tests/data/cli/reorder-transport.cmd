reorder inputs/transport.csv --permutations 40 --seed 7
