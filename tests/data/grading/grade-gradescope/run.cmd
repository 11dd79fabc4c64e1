grade --golden key.csv ben.csv -f gradescope --visibility after_due_date --weights decision=2 -o results.json
