explain probes.csv --format mermaid
