"""Reads for the human-budget estimates (metrics/budget.py): the population of citations a truth label set
scores, with an LLM set's labels beside them, as plain arrays."""

from __future__ import annotations

import numpy as np

from judging.labels import LabelSet
from judging.scope import Scope
from metrics.budget import Population
from metrics.material import labels_get, material_get


def budget_population(*, truth: LabelSet, llm: LabelSet, scope: Scope) -> tuple[Population, list[str], list[str]]:
    """(population, run ids, topic ids): every citation the truth set labels at depth 1, over the topics it
    judged, with the LLM set's label (-1 where it has none). Recall is linear in the labels only at depth 1."""
    if scope.depth != 1:
        raise ValueError("the budget estimates are defined at depth 1 (first citations), as the paper's scores")
    material = material_get(scope)
    human, machine = labels_get(truth, material), labels_get(llm, material)
    labelled = human.labelled
    answer_run, answer_topic, sentence_counts = material.answer_columns
    position = material.citation_answer_position
    judged_topics = np.unique(answer_topic[position[labelled]])
    in_topics = np.isin(answer_topic, judged_topics) & (answer_run >= 0)
    keep = labelled & in_topics[position]
    sentence_of, sentence_answer = material.sentence_positions
    sentence_judged = np.bincount(sentence_of, weights=labelled, minlength=len(sentence_answer))
    unjudged = np.bincount(sentence_answer, weights=sentence_judged == 0, minlength=len(sentence_counts))
    population = Population(
        answer=position[keep],
        llm_code=machine.codes[keep].astype(np.int64),
        human_code=human.codes[keep].astype(np.int64),
        answer_run=np.where(in_topics, answer_run, 0),
        answer_judged=np.bincount(position[keep], minlength=len(sentence_counts)).astype(float),
        answer_sentences=np.where(in_topics, sentence_counts - unjudged, 0).astype(float),
        n_runs=len(material.run_names),
        n_topics=len(judged_topics),
    )
    return population, list(material.run_names), [material.topic_names[int(t)] for t in judged_topics]


def plan_population(
    *, llm: LabelSet, human: LabelSet, scope: Scope
) -> tuple[Population, np.ndarray, list[str], list[str]]:
    """(population, known, run ids, topic ids) for planning: every first citation in scope that the LLM set or
    the human set labels, over the topics where either labels one; `known` marks those the human set labels.
    Denominators are the answers' first citations and sentences (what a full judging would count)."""
    if scope.depth != 1:
        raise ValueError("the budget estimates are defined at depth 1 (first citations), as the paper's scores")
    for label_set in (llm, human):
        if not label_set.judge_ids:
            raise ValueError(f"{label_set.spec} has no labels yet: planning needs a set with labels")
    material = material_get(scope)
    human_labels, machine = labels_get(human, material), labels_get(llm, material)
    labelled = human_labels.labelled | machine.labelled
    answer_run, answer_topic, sentence_counts = material.answer_columns
    position = material.citation_answer_position
    topics = np.unique(answer_topic[position[labelled]])
    in_topics = np.isin(answer_topic, topics) & (answer_run >= 0)
    keep = labelled & in_topics[position]
    population = Population(
        answer=position[keep],
        llm_code=machine.codes[keep].astype(np.int64),
        human_code=human_labels.codes[keep].astype(np.int64),
        answer_run=np.where(in_topics, answer_run, 0),
        answer_judged=np.bincount(position[keep], minlength=len(sentence_counts)).astype(float),
        answer_sentences=np.where(in_topics, sentence_counts, 0).astype(float),
        n_runs=len(material.run_names),
        n_topics=len(topics),
    )
    known = population.human_code >= 0
    return population, known, list(material.run_names), [material.topic_names[int(t)] for t in topics]
