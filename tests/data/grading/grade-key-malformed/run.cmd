grade --golden key.csv ada.csv -f json
