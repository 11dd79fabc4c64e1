grade --golden key.json ada.csv
