grade --autograder --golden key.csv ben.csv -f gradescope
