"""The support prompt of DESIGN §4 (the paper's Figure 1), versioned.

A change to the text is a new version; results keep the version they were made with, so never edit a
published version in place.
"""

from __future__ import annotations

from assess.models import Passage

PROMPT_V1 = """In this task, you will evaluate whether each statement is supported by its corresponding citations. Note that the system responses may appear very fluent and well-formed, but contain slight inaccuracies that are not easy to discern at first glance. Pay close attention to the text. You will be provided with a statement and its corresponding citation. It may be helpful to ask yourself whether it is accurate to say "according to the citation" with a statement following this phrase. Be sure to check all of the information in the statement. You will be given three options:
- "Full Support": All of the information in the statement is supported in the citation.
- "Partial Support": Only some of the information is supported in the citation, but other parts of the information are missing from the citation.
- "No Support": This citation does not support any part of the statement.

Please provide your response based on the information in the citation. If you are unsure, use your best judgment. Respond as either "Full Support", "Partial Support", or "No Support" with no additional information.

Statement: {statement}

Citation: {citation}"""

PROMPTS: dict[str, str] = {"v1": PROMPT_V1}
CURRENT_VERSION = "v1"


# Token counts before a call are estimates: a token is about four characters of English (OpenAI's rule of
# thumb), and a reply is counted at 16 tokens, room for a label of two to four. The rate limiter charges
# these, and the pre-label page shows them before a job starts.
CHARS_PER_TOKEN = 4
REPLY_TOKENS = 16
CITATION_SEPARATOR = ": "


class UnknownPromptVersion(ValueError):
    pass


def prompt_text(version: str) -> str:
    try:
        return PROMPTS[version]
    except KeyError:
        raise UnknownPromptVersion(f"unknown prompt version {version!r}; known: {', '.join(PROMPTS)}") from None


def citation_text(passage: Passage) -> str:
    """Title + ": " + passage text, as in the track's script."""
    return f"{passage.title}{CITATION_SEPARATOR}{passage.text}"


def prompt_render(*, version: str, statement: str, citation: str) -> str:
    # str.replace, not str.format: statements and passages may hold braces.
    return prompt_text(version).replace("{statement}", statement, 1).replace("{citation}", citation, 1)


def messages_for(*, version: str, statement: str, citation: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt_render(version=version, statement=statement, citation=citation)}]


def prompt_fixed_chars(version: str) -> int:
    """The characters of a prompt that do not depend on its pair (the template without its two fields)."""
    return len(prompt_text(version)) - len("{statement}") - len("{citation}")


def input_tokens_estimate(chars: int) -> int:
    return chars // CHARS_PER_TOKEN
