"""Agreement between two label sets (DESIGN §5): confusion matrix, exact agreement, Cohen's κ with a 95%
interval, Krippendorff's alpha (ordinal), each label's precision and recall, Kendall τ-b.

Pure functions over plain data; the statistics are scikit-learn's, scipy's and the `krippendorff` package's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import krippendorff
import numpy as np
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from judging.vocabulary import SUPPORT, Vocabulary
from metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, kappa_interval


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


@dataclass(frozen=True)
class LabelAgreement:
    labels: tuple[str, ...]  # row and column order of the matrix: NS, PS, FS (or the vocabulary's, lowest first)
    n: int
    matrix: list[list[int]]  # rows: judge a, columns: judge b
    matrix_percent: list[list[float]]
    agreement: float | None
    kappa: float | None
    kappa_linear: float | None
    distribution_a: dict[str, int]
    distribution_b: dict[str, int]
    kappa_ci: tuple[float, float] | None = None  # 95%, items resampled (`metrics.bootstrap.kappa_interval`)
    alpha_ordinal: float | None = None  # Krippendorff's alpha, ordinal scale NS < PS < FS
    # Per label L: precision = of b's L, the share a calls L; recall = of a's L, the share b calls L.
    per_label: dict[str, dict[str, float | int | None]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _codes(values: Sequence[str] | np.ndarray, vocabulary: Vocabulary = SUPPORT) -> np.ndarray:
    """Labels as integer codes (the vocabulary's codes); integer input is taken as codes already."""
    array = np.asarray(values)
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    return np.array([vocabulary.code_of[v] for v in array], dtype=np.int64)


def alpha_ordinal(a: np.ndarray, b: np.ndarray, levels: int = 3) -> float | None:
    """Krippendorff's alpha for two coders on the ordinal scale 0 < 1 < ... < levels-1; None when undefined."""
    if len(a) < 2 or len(np.unique(np.concatenate([a, b]))) < 2:
        return None
    value = krippendorff.alpha(
        reliability_data=np.vstack([a, b]).astype(float),
        level_of_measurement="ordinal",
        value_domain=list(range(levels)),
    )
    return _finite(float(value))


def per_label_figures(matrix: np.ndarray, labels: Sequence[str]) -> dict[str, dict[str, float | int | None]]:
    """For each label: of the items b gave it, the share a gave it too (precision of b against a), and of the
    items a gave it, the share b gave it too (recall), with how many each gave."""
    figures: dict[str, dict[str, float | int | None]] = {}
    for i, label in enumerate(labels):
        given_a, given_b, both = int(matrix[i].sum()), int(matrix[:, i].sum()), int(matrix[i, i])
        figures[label] = {
            "precision": both / given_b if given_b else None,
            "recall": both / given_a if given_a else None,
            "support_a": given_a,
            "support_b": given_b,
        }
    return figures


def label_agreement(
    a: Sequence[str] | np.ndarray,
    b: Sequence[str] | np.ndarray,
    *,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    vocabulary: Vocabulary = SUPPORT,
) -> LabelAgreement:
    """Agreement over items both judges labelled, given as two label lists (or codes) in the same order, on the
    vocabulary's labels (support's NS, PS, FS unless told: relevance grades 0-3 are another)."""
    if len(a) != len(b):
        raise ValueError("the two label lists must have the same length")
    labels = list(vocabulary.names)
    size = len(labels)
    codes = list(range(size))
    a, b = _codes(a, vocabulary), _codes(b, vocabulary)
    n = len(a)
    if n == 0:
        zero = dict.fromkeys(labels, 0)
        return LabelAgreement(
            tuple(labels),
            0,
            [[0] * size for _ in range(size)],
            [[0.0] * size for _ in range(size)],
            None,
            None,
            None,
            zero,
            dict(zero),
            per_label=per_label_figures(np.zeros((size, size), dtype=int), labels),
        )
    matrix = confusion_matrix(a, b, labels=codes)
    kappa = cohen_kappa_score(a, b, labels=codes)
    kappa_linear = cohen_kappa_score(a, b, labels=codes, weights="linear")
    return LabelAgreement(
        labels=tuple(labels),
        n=n,
        matrix=matrix.astype(int).tolist(),
        matrix_percent=(100.0 * matrix / n).round(2).tolist(),
        agreement=float(np.trace(matrix) / n),
        kappa=_finite(float(kappa)),
        kappa_linear=_finite(float(kappa_linear)),
        distribution_a={label: int(matrix[i].sum()) for i, label in enumerate(labels)},
        distribution_b={label: int(matrix[:, i].sum()) for i, label in enumerate(labels)},
        kappa_ci=kappa_interval(matrix, resamples=resamples, seed=seed) if resamples > 0 else None,
        alpha_ordinal=alpha_ordinal(a, b, size),
        per_label=per_label_figures(matrix, labels),
    )


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall τ-b; None when it is undefined (fewer than two runs, or a constant side)."""
    if len(x) < 2:
        return None
    result = kendalltau(x, y)
    return _finite(float(result.statistic))


@dataclass(frozen=True)
class SelfConsistency:
    """How often one judge gives the same pair different labels on different citations (runs)."""

    repeated_pairs: int  # pairs labelled on two or more citations
    inconsistent_pairs: int  # of those, pairs with more than one distinct label
    rate: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def self_consistency(labels_by_pair: Mapping[int, Iterable[str]]) -> SelfConsistency:
    repeated = inconsistent = 0
    for labels in labels_by_pair.values():
        seen = list(labels)
        if len(seen) < 2:
            continue
        repeated += 1
        if len(set(seen)) > 1:
            inconsistent += 1
    return SelfConsistency(repeated, inconsistent, inconsistent / repeated if repeated else None)


def self_consistency_arrays(pair_ids: np.ndarray, codes: np.ndarray) -> SelfConsistency:
    """`self_consistency` from two aligned arrays: each labelled citation's pair and label code."""
    if len(pair_ids) == 0:
        return SelfConsistency(0, 0, None)
    order = np.argsort(pair_ids, kind="stable")
    pairs, sorted_codes = pair_ids[order], codes[order]
    starts = np.flatnonzero(np.r_[True, pairs[1:] != pairs[:-1]])
    sizes = np.diff(np.r_[starts, len(pairs)])
    differs = np.minimum.reduceat(sorted_codes, starts) != np.maximum.reduceat(sorted_codes, starts)
    repeated = int((sizes >= 2).sum())
    inconsistent = int((differs & (sizes >= 2)).sum())
    return SelfConsistency(repeated, inconsistent, inconsistent / repeated if repeated else None)
