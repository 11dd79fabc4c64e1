grade --golden key.csv --submission-dir upload
