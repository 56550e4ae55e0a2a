"""Passage relevance, post-editing UMBRELA (issue 26, point 3): one card per (topic, passage) of a pool, graded
0 to 3 on NIST's and UMBRELA's scale."""
