grade submission.csv --golden golden.csv --columns all
