"""Sentence support, TREC 2025 style (issue 26): one card per sentence, verification-worthy then the combined
support of all its cited passages together."""
