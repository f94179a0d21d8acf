"""Registration: tournaments, units, players, pairs and teams (the Django side)."""
