grade --golden key.csv submissions/right.csv --feedback shortcut
