grade --golden key.csv submissions
