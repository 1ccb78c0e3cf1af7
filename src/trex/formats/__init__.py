"""Readers, one module per input kind; each returns plain records from ``records.py``."""
