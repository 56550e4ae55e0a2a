"""The judgment kinds, one package each (docs/kinds.md); judging/kinds.py is their registry."""
