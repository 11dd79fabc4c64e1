shortcuts cases/probes.csv
copy: cases/probes.csv
