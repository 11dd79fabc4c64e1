reorder inputs/transport.csv --permutations 40 --seed 7 --as-of 2026-01-01T10:00:50Z
