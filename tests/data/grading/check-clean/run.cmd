check cases/probes.csv --golden golden/probes.csv --columns all
