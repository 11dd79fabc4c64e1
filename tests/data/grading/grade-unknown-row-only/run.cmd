grade --golden key.csv ada.csv -f github
