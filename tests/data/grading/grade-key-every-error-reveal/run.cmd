grade --golden key.csv ada.csv --reveal
