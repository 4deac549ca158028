"""Label rendering."""

PAGE_INCHES = (4, 6)
