"""The relevance kind's default guidelines (Markdown): our own wording of the 0-3 scale NIST's assessors and
UMBRELA (Upadhyay et al., 2024) grade passages on for the TREC RAG track."""

GUIDELINES = """\
## What you are judging

You see a **question** and **one passage** retrieved for it. Grade how well the passage answers the
question, on the scale NIST's assessors use. Judge the passage alone: not whether it is true in the world,
and not its source.

| grade | key | when |
|---|---|---|
| **Perfectly relevant** | `3` | the passage is dedicated to the question and contains the exact answer |
| **Highly relevant** | `2` | the passage has some answer, but it may be unclear or hidden among other information |
| **Related** | `1` | the passage is on the question's subject but does not answer it |
| **Irrelevant** | `0` | the passage has nothing to do with the question |

When post-editing, the grade shown is pre-selected: `Enter` keeps it, another key changes it.
"""
