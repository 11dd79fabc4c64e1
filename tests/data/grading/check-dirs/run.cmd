check cases --golden golden --format markdown --columns all
