grade --golden key.csv submissions --baseline old.csv
