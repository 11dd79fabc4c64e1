explain tests/data/explain/every-reason.ndjson -f mermaid
