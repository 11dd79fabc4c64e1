explain tests/data/explain/hostile.csv -f mermaid
