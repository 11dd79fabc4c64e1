shortcuts cases/probes.csv -f json
copy: cases/probes.csv
