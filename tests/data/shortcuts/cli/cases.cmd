shortcuts cases/
copy: cases
