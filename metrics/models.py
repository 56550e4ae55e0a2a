"""Metrics keep no tables of their own: scores are computed from judgments (DESIGN §5)."""
