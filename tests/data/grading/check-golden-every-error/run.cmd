check cases --golden golden
