grade --autograder -f prairielearn --golden key.csv --submission-dir upload -o results/results.json
