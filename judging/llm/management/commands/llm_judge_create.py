"""python manage.py llm_judge_create NAME --model MODEL [--provider openai|azure|openai-compatible] ..."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.llm import services
from judging.llm.models import Provider
from judging.llm.prompt import CURRENT_VERSION, PROMPTS


class Command(BaseCommand):
    help = "Create an LLM judge. Keys come from the environment (OPENAI_API_KEY, AZURE_OPENAI_API_KEY, ...)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--model", required=True, help="model name, or the deployment name on Azure")
        parser.add_argument("--provider", choices=Provider.values, default=Provider.OPENAI)
        parser.add_argument("--base-url", default="", help="for openai-compatible servers (vLLM, Ollama, ...)")
        parser.add_argument("--prompt-version", choices=list(PROMPTS), default=CURRENT_VERSION)
        parser.add_argument("--temperature", type=float, default=0.0)
        parser.add_argument("--max-concurrency", type=int, default=8)
        parser.add_argument("--rpm", type=int, default=None, help="requests per minute, across all workers")
        parser.add_argument("--tpm", type=int, default=None, help="tokens per minute, across all workers")
        parser.add_argument("--price-in", default="0", help="price per million input tokens")
        parser.add_argument("--price-out", default="0", help="price per million output tokens")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            llm = services.llm_judge_create(
                name=options["name"],
                model=options["model"],
                provider=options["provider"],
                base_url=options["base_url"],
                prompt_version=options["prompt_version"],
                temperature=options["temperature"],
                max_concurrency=options["max_concurrency"],
                requests_per_minute=options["rpm"],
                tokens_per_minute=options["tpm"],
                price_input_per_million=options["price_in"],
                price_output_per_million=options["price_out"],
            )
        except services.PrelabelError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"created LLM judge {llm}")
