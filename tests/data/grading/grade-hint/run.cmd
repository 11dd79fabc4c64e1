grade --golden key.csv ben.csv --cases cases.csv --feedback hint -f github
