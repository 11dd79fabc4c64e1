grade --golden key.csv ada.csv ben.csv -f gradescope
