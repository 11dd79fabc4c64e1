shortcuts cases/ -f json
copy: cases
