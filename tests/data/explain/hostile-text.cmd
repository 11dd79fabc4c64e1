explain hostile.csv
