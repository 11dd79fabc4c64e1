shortcuts cases/probes.csv --columns all
copy: cases/probes.csv
