grade --golden key.csv ada.csv -f markdown
