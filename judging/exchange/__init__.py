"""Judgment formats, both ways: NIST's support-judgment JSONL, the judgments exchange file (CSV or JSONL) and
`trec_eval` qrels (written only).

Import (`services.judgments_import`) is one service for the command, the page and the API; export
(`export.judgments_export`) writes one or more label sets' labels (`judging.labels`) for a `judging.scope`.
"""
