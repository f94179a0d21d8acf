"""Helpers shared by tests and benchmarks (field generators, exact references)."""
