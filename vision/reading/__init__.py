"""Reading a tile: the classifier, one set's tiles read together, an enrolled set's
adaptation and tile set, a second model's opinion, and the reading of one picture."""
