"""The default guidelines a campaign shows its assessors: our own wording of what NIST asked of the
TREC 2024 RAG support assessors."""

from __future__ import annotations

DEFAULT_GUIDELINES = """\
What you are judging
A computer system answered a question in several sentences, and for each sentence it named a web passage
as its source. You will see one sentence and one passage it cites at a time. Your task: decide whether the
passage backs up what the sentence says. You are not asked whether the sentence needed a source, whether it
is true in the world, or whether it answers the question well.

Read the sentence in its answer
The whole answer is shown with the sentence in bold. Use it to understand the sentence, for example to see
what "it" or "they" refers to, or what was said just before.

The test
Ask yourself: is it accurate to say "According to the passage, ..." followed by the sentence?
Example: for "Barack Obama was born in Hawaii", would "According to the passage, Barack Obama was born in
Hawaii" be correct? Check every piece of information in the sentence, not only its main point.

The three answers
- Full support (key 1 or f): everything the sentence states can be found in the passage.
- Partial support (key 2 or p): some of what the sentence states is in the passage, but other parts are not.
- No support (key 3 or n): the passage backs up no part of the sentence.

Things to keep in mind
- The answers often read smoothly and sound confident, yet contain small errors: a wrong year, a number
  that is slightly off, a name swapped. Read closely, as if you were proofreading.
- Judge each passage on its own. Whether another passage supports the same sentence does not matter here.
- Ignore whether the sentence or the passage is on topic for the question: support is a separate matter.
- When the same sentence and the same passage come back, give them the same answer.
- Some cases are grey. Make your best call from what the passage says and what the sentence says, and
  apply the same standard every time.

Working on the page
- One key stores your answer and shows the next pair. u or Backspace goes back to the previous pair so
  you can change your answer; the earlier answer is kept in the history.
- Use "Flag" with a short comment when something is wrong with a pair (unreadable passage, broken
  sentence) or you want an organizer to look at it; then give your best answer as usual.
- Only active time is counted: time with the page hidden or with no activity for over a minute is not.
"""
