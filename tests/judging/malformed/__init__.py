"""The corpus of malformed files of tests/judging/test_malformed_corpus.py: how each is made (files),
the files by theme (imports, judgments, fields) and the three channels that try them (channels)."""
