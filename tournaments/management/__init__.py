"""Management commands of the tournaments app (TOURNAMENT_FILE.md "Command line")."""
