explain probes.csv --witness --format html
filter: html-structure
