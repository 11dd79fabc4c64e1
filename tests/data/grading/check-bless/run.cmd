check cases --golden golden --bless -o report.json
