grade --golden key.csv ben.csv --verbose
