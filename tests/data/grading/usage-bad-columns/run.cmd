grade submission.csv --golden golden.csv --columns decision,verdict
