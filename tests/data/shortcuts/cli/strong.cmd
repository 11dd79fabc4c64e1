shortcuts cases/probes.csv inputs/mend.csv
copy: cases/probes.csv
