explain hostile.csv -f html
filter: html-structure
