grade --golden key.csv submissions --verbose
