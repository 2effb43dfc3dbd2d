"""Rendered pictures of tiles and tables, to train and test on. Never imported at the table."""
