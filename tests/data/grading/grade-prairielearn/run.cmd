grade --golden key.csv dee.json -f prairielearn
