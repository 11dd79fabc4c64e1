validate inputs/transport.csv --lint
