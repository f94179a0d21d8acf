"""Scoring: the pure engine and standings (``scoring.engine``, ``scoring.standings``) and the
Django side (events at tables, penalties, the audit log, services)."""
