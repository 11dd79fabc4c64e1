shortcuts cases/probes.csv -f markdown
copy: cases/probes.csv
