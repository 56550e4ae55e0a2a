"""Sentence support, TREC 2025 style (issue 26): one card per sentence; does it need a citation, then do all
its cited passages together support it (NIST's `verification_worthy` and `citationsCombibed`)."""

from __future__ import annotations

from judging.kinds import Kind
from kinds.sentence.guidelines import GUIDELINES

from .build import campaign_build_sentences
from .prelabel import PRELABEL
from .selectors import assignments_progress
from .vocabulary import COMBINED, WORTHY

KIND = Kind(
    name="sentence",
    title="Sentence support (TREC 2025: verification-worthy, combined citations)",
    unit="sentence",
    steps=(WORTHY, COMBINED),
    judge_url="kind_sentence:judge",
    build=campaign_build_sentences,
    progress=assignments_progress,
    campaign_panel="kind_sentence/campaign_panel.html",
    extras={
        "prelabel": PRELABEL,
        "scores_command": "sentence_scores",
        "agreement_command": "sentence_agreement",
        "export_command": "sentence_export",
    },
    counted_as="sentences",
    default_guidelines=GUIDELINES,
)

__all__ = ["KIND", "PRELABEL"]
