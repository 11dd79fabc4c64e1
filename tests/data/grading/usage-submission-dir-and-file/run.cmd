grade --golden key.csv ben.csv --submission-dir upload
