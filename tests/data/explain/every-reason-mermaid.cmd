explain every-reason.ndjson -f mermaid
