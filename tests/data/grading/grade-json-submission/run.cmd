grade submission.json --golden golden.csv --columns decision,reason,stale_generation,lease_expired
