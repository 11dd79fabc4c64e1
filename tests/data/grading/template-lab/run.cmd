template cases.csv -o blank.csv --columns decision,reason
