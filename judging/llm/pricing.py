"""What a judge's calls cost, from its prices per million tokens: one rule for the results and the estimate."""

from __future__ import annotations

from decimal import Decimal

from judging.llm.models import LLMJudge

# The Batch API costs half the live price (OpenAI and Azure alike).
BATCH_PRICE_FACTOR = Decimal("0.5")


def cost_of(llm: LLMJudge, *, input_tokens: int, output_tokens: int, batch: bool = False) -> Decimal:
    cost = (
        Decimal(input_tokens) * llm.price_input_per_million + Decimal(output_tokens) * llm.price_output_per_million
    ) / Decimal(1_000_000)
    if batch:
        cost *= BATCH_PRICE_FACTOR
    return cost.quantize(Decimal("0.000001"))


def is_priced(llm: LLMJudge) -> bool:
    return bool(llm.price_input_per_million or llm.price_output_per_million)
