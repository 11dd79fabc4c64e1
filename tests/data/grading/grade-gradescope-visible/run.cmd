grade --golden key.csv ben.csv -f gradescope -o results.json
