grade --golden key.csv ben.csv -f prairielearn --visibility hidden -o results.json
