"""The sentence kind's default guidelines (Markdown): our own wording of TREC 2025's sentence-level support task,
where a sentence is judged once, first whether it needs a citation, then against all its cited passages together."""

GUIDELINES = """\
## What you are judging

A computer system answered a question in several sentences and named web passages as sources. You see **one
sentence** in its answer, with **every passage it cites**. Each card has two steps.

## Step 1: does the sentence need a citation?

A sentence needs one when it states something a reader could want to check: a fact, a number, a date, a
cause. Greetings, transitions, restatements of the question and pure opinions need none.

| answer | key | then |
|---|---|---|
| **Yes** | `y` | step 2, or, when the sentence cites nothing, the card ends: it needs a citation and has none |
| **No** | `n` | the card ends |

## Step 2: do the cited passages, together, support it?

Read all the passages as one source. Is it accurate to say *"According to these passages, ..."* followed by
the sentence? Check **every** piece of information, not only the main point.

| answer | key | when |
|---|---|---|
| **Full support** | `3` | everything the sentence states is in the passages, taken together |
| **Partial support** | `2` | some of it is there, some is missing |
| **No support** | `1` | none of it is there |

Judge only what the passages say, not what you know. When post-editing, the LLM's answer is pre-selected:
`Enter` keeps it, another key changes it. `Backspace` or `u` goes one step back.
"""
