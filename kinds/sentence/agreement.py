"""Agreement between two sentence label sets, in the unit "sentence", on both steps of the card:
verification-worthy (no/yes, on the sentences both labelled) and combined support (NS/PS/FS, on the sentences
both gave a combined label). κ and its interval are metrics' (metrics.agreement, metrics.bootstrap)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from metrics.agreement import LabelAgreement, label_agreement
from metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, kappa_interval, kappa_of_matrices

from .selectors import SentenceLabels, SentenceLabelSet, sentence_labels
from .vocabulary import WORTHY


@dataclass(frozen=True)
class WorthyAgreement:
    labels: tuple[str, ...]  # rows a, columns b: no, yes
    n: int
    matrix: list[list[int]]
    agreement: float | None
    kappa: float | None
    kappa_ci: tuple[float, float] | None


def worthy_agreement(
    a: np.ndarray, b: np.ndarray, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> WorthyAgreement:
    """a, b: aligned 0/1 arrays (1 needs a citation)."""
    matrix = np.zeros((2, 2), dtype=np.int64)
    np.add.at(matrix, (a.astype(np.int64), b.astype(np.int64)), 1)
    n = int(matrix.sum())
    kappa = float(kappa_of_matrices(matrix.astype(float))) if n else float("nan")
    return WorthyAgreement(
        labels=WORTHY.names,
        n=n,
        matrix=matrix.tolist(),
        agreement=float(np.trace(matrix) / n) if n else None,
        kappa=None if np.isnan(kappa) else kappa,
        kappa_ci=kappa_interval(matrix, resamples=resamples, seed=seed) if n and resamples > 0 else None,
    )


@dataclass(frozen=True)
class SentenceAgreement:
    a: dict[str, str]
    b: dict[str, str]
    sentences_a: int
    sentences_b: int
    worthy: WorthyAgreement
    combined: LabelAgreement
    unit: str = "sentence"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def steps(self) -> list[dict[str, Any]]:
        """Both steps as a page shows them: title, figures and the matrix's rows with their labels."""
        shown = []
        for title, step in (("Verification-worthy", self.worthy), ("Combined support", self.combined)):
            shown.append(
                {
                    "title": title,
                    "n": step.n,
                    "agreement": step.agreement,
                    "kappa": step.kappa,
                    "kappa_ci": step.kappa_ci,
                    "labels": step.labels,
                    "rows": list(zip(step.labels, step.matrix, strict=True)),
                }
            )
        return shown


def agreement_of(
    a: SentenceLabels, b: SentenceLabels, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[WorthyAgreement, LabelAgreement]:
    """Both steps over the sentences both sets labelled (combined: where both gave a combined label)."""
    _, ia, ib = np.intersect1d(a.sentence_ids, b.sentence_ids, assume_unique=True, return_indices=True)
    worthy = worthy_agreement(a.worthy[ia], b.worthy[ib], resamples=resamples, seed=seed)
    ca, cb = a.combined[ia], b.combined[ib]
    both = (ca >= 0) & (cb >= 0)
    combined = label_agreement(ca[both], cb[both], resamples=resamples, seed=seed)
    return worthy, combined


def sentence_agreement_report(
    a: SentenceLabelSet, b: SentenceLabelSet, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> SentenceAgreement:
    labels_a, labels_b = sentence_labels(a), sentence_labels(b)
    worthy, combined = agreement_of(labels_a, labels_b, resamples=resamples, seed=seed)
    return SentenceAgreement(a.as_dict(), b.as_dict(), len(labels_a), len(labels_b), worthy, combined)
