grade --golden key.csv submissions --baseline old.csv --gradebook new.csv -f markdown
