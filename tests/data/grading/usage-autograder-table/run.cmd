grade --autograder --golden key.csv ben.csv -f json -o report.json
