"""print, import_players, export_xlsx."""
