"""Training the table's networks, and their eight-bit copies. Never imported at the table."""
