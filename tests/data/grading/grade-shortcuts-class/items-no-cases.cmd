grade --golden key.csv submissions --feedback none -f json -o report.json --item-analysis items.csv
