"""The rules of Guandan competition as pure Python (RULES.md §1–§4). Imports no Django."""
