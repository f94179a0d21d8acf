"""Pairing: the pure Swiss engine (``pairing.swiss``) and the Django side (rounds, tables)."""
