"""LLM pre-labelling: the prompt, parsing, provider clients, shared rate limits, jobs and batch mode."""
