grade --golden key.csv submissions --lms canvas --roster gradebook.csv --assignment 4102 --gradebook import.csv -o report.txt
