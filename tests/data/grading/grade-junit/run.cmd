grade submission.csv --golden golden.csv -o grade.xml
