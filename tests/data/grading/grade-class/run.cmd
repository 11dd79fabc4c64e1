grade --golden key.csv submissions --gradebook gradebook.csv --item-analysis items.csv
