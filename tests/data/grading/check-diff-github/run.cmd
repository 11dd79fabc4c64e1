check cases/probes.csv --golden golden/probes.csv --format github --columns decision,reason,holder_identity
