grade --golden key.csv dee.json -f github-classroom
