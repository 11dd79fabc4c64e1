grade --golden key.csv submissions --cases cases/acks.csv cases/cancellation.csv cases/conflicts.csv cases/deadlines.csv cases/lesson-headings.csv cases/offers.csv cases/probes.csv cases/progress.csv cases/renewals.csv cases/results.csv
copy: cases/acks.csv
copy: cases/cancellation.csv
copy: cases/conflicts.csv
copy: cases/deadlines.csv
copy: cases/lesson-headings.csv
copy: cases/offers.csv
copy: cases/probes.csv
copy: cases/progress.csv
copy: cases/renewals.csv
copy: cases/results.csv
