explain hostile.csv -f mermaid
