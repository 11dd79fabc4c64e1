grade --golden key.csv submissions --lms moodle --roster worksheet.csv --gradebook upload.csv --missing zero --feedback none -o report.txt
