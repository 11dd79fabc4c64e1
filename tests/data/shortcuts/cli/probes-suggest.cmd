shortcuts cases/probes.csv --suggest catch.csv --golden catch.golden.csv -o report.txt
copy: cases/probes.csv
