"""Tracking a table: which zones changed, when to read them, what stayed put long enough to
be a discard, a meld or a reveal, weighed with what the game allows, and the camera feed the
table service reads."""
