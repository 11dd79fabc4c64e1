grade submission.csv --golden golden.csv --format github
