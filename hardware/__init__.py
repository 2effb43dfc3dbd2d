"""hardware package of riichi-referee."""
