"""The pre-labeller's one error an organizer can correct (re-exported by `services`, where callers read it)."""


class PrelabelError(ValueError):
    """A request an organizer can correct (unknown judge, imported label source, missing key, a kind that has
    no LLM pre-labeller)."""
