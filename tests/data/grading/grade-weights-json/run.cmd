grade --golden key.csv ben.csv dee.json --weights decision=2,reason=1 -f json
