// Transport lands here.
