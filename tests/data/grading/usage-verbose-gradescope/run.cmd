grade --golden key.csv ben.csv -f gradescope -v
