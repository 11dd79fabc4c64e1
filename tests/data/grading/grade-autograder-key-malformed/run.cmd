grade --autograder -f gradescope --golden key.csv --submission-dir upload -o results/results.json
