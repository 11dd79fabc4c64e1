grade --golden key.csv dee.json
