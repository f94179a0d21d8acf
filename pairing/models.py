"""The pairing app stores nothing of its own: rounds, tables and seats live in ``tournaments``.

They moved there (same database tables) so that scoring, below pairing, can use them.
"""
