grade submission.csv --golden golden.csv
