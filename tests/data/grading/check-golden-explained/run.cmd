check cases.csv --golden golden.csv --columns all
