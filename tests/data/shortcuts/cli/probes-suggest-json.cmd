shortcuts cases/probes.csv --suggest catch.json --golden catch.golden.json -f json -o report.json
copy: cases/probes.csv
