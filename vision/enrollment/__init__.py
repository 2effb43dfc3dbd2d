"""The enrollment sheet: a printed page with a place for every tile kind, and reading a
photo of it with one tile of each kind laid on it, to learn a tournament's own set."""
