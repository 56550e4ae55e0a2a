"""The sentence kind's two vocabularies: step 1, does the sentence need a citation (verification-worthy), and
step 2, do its cited passages together support it (NIST's `citationsCombibed`: 2 FS, 1 PS, 0 NS)."""

from __future__ import annotations

from judging.vocabulary import SUPPORT, Term, Vocabulary

WORTHY = Vocabulary(
    kind="sentence-worthy",
    terms=(
        Term(name="no", title="Needs no citation", weight=0.0),
        Term(name="yes", title="Needs a citation", weight=1.0),
    ),
)

# The same names, codes and weights as support per citation: combined support is support, of all the passages.
COMBINED = Vocabulary(kind="sentence", terms=SUPPORT.terms)

# NIST's codes of the Webassess file, both ways. "-1": not judged this way; "" in the platform's rows.
NIST_COMBINED = {"2": "FS", "1": "PS", "0": "NS"}
COMBINED_NIST = {label: code for code, label in NIST_COMBINED.items()}
