grade --golden key.csv ben.csv ada.csv --feedback none -f junit
