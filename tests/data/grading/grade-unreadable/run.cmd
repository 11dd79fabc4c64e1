grade nowhere.csv --golden also-nowhere.csv
