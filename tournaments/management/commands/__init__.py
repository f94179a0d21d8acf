"""import_tournament, export_tournament, standings, pair_round, demo, simulate."""
