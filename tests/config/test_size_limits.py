"""scripts/sizes.py, the size limits that `make lint` checks, run on small trees of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SIZES = Path(__file__).resolve().parents[2] / "scripts" / "sizes.py"


def function_of(lines: int, *, name: str = "work", indent: str = "", prefix: str = "def") -> str:
    """A function of exactly `lines` lines, counted from its `def` line."""
    body = "".join(f"{indent}    x{n} = {n}\n" for n in range(lines - 2))
    return f"{indent}{prefix} {name}() -> None:\n{body}{indent}    return None\n"


def tree(root: Path, files: dict[str, str]) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def sizes(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SIZES), str(root)], capture_output=True, text=True)


def test_it_passes_a_tree_at_the_limits(tmp_path: Path) -> None:
    # given: a 60-line function under a decorator, and a module of exactly 500 lines
    decorated = "import functools\n\n\n@functools.cache\n" + function_of(60)
    full_module = decorated + "\n" * (500 - len(decorated.splitlines()))
    root = tree(tmp_path, {"app/services.py": full_module})

    # when
    result = sizes(root)

    # then
    assert result.stdout == ""
    assert result.returncode == 0


def test_it_names_every_module_and_function_over_the_limits(tmp_path: Path) -> None:
    # given: a 61-line function, a 61-line async method, and a module of 501 lines
    methods = "class Worker:\n" + function_of(61, name="run", indent="    ", prefix="async def")
    long_module = function_of(61, name="build") + "\n" * (501 - 61)
    root = tree(tmp_path, {"app/views.py": long_module, "app/tasks.py": methods})

    # when
    result = sizes(root)

    # then
    assert result.stdout.splitlines() == [
        "app/tasks.py:2: function run is 61 lines (limit 60)",
        "app/views.py:1: module is 501 lines (limit 500)",
        "app/views.py:1: function build is 61 lines (limit 60)",
    ]
    assert result.returncode == 1


def test_it_skips_migrations_and_installed_packages(tmp_path: Path) -> None:
    # given: long functions only where the limits do not apply
    long_function = function_of(200)
    root = tree(
        tmp_path,
        {
            "app/migrations/0001_initial.py": long_function,
            ".venv/lib/site.py": long_function,
            "node_modules/pkg/build.py": long_function,
        },
    )

    # when
    result = sizes(root)

    # then
    assert result.stdout == ""
    assert result.returncode == 0
