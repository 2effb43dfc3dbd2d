"""vision package of riichi-referee."""
