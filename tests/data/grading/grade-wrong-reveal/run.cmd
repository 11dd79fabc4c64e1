grade submission.csv --golden golden.csv --reveal --format json
