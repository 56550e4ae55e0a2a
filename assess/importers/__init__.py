"""The importers of the material under assessment (DESIGN §7): topics, passages, runs in TREC and NIST form.

Every import streams its files line by line and writes in batches inside one transaction. Errors are
collected for the whole input; if there is any, the transaction is rolled back and nothing changes.
Warnings are reported and the input is imported. Each message names file, line and field (`report.py`).
"""
