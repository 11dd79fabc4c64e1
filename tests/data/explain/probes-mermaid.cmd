explain tests/data/explain/probes.csv --format mermaid
