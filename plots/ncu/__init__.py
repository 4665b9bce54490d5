"""Nsight Compute cross-check of the labs: common.py (parsing, pairing), labs.py (the table)."""
