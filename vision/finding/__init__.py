"""Finding tiles in a picture: the learned finder (:mod:`vision.finding.learned`), the
felt-colour finder for flat printed tiles (:mod:`vision.finding.felt`), and what both give
(:mod:`vision.finding.found`)."""
