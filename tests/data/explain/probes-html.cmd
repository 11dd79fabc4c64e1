explain probes.csv --format html
filter: html-structure
