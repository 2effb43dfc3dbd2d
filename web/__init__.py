"""web package of riichi-referee."""
