explain probes.csv --witness --format mermaid
