"""Management commands of the reports app."""
