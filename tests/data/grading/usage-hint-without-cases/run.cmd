grade --golden key.csv ada.csv --feedback hint
