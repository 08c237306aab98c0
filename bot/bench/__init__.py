"""Benchmarks: `python -m bot bench ...`, a module per measurement."""
