grade --golden key.csv ben.csv --visibility hidden
