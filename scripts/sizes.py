"""The size limits: no Python module over 500 lines, no function or method over 60, outside migrations.

Usage: python scripts/sizes.py [ROOT]   (ROOT defaults to the repository holding this script)

The files are git's view of ROOT: tracked files plus untracked ones that .gitignore does not hide, so a new
module is checked before its first commit. Migrations, .venv and node_modules are skipped.

A module's size is its number of lines. A function's size runs from its `def` line to its last line
(end_lineno - lineno + 1): decorators are not counted, nested functions count towards the function that
holds them and are also measured on their own. Prints one line per offender and exits 1 if there is one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

MODULE_LIMIT = 500
FUNCTION_LIMIT = 60
SKIPPED_DIRECTORIES = frozenset({"migrations", ".venv", "node_modules"})


def python_files(root: Path) -> list[Path]:
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    relative = sorted({Path(name) for name in listed.split("\0") if name})
    return [path for path in relative if not SKIPPED_DIRECTORIES.intersection(path.parts)]


def offenders(root: Path, path: Path) -> list[str]:
    source = (root / path).read_text(encoding="utf-8")
    found: list[tuple[int, str]] = []
    module_lines = len(source.splitlines())
    if module_lines > MODULE_LIMIT:
        found.append((1, f"{path}:1: module is {module_lines} lines (limit {MODULE_LIMIT})"))
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            function_lines = node.end_lineno - node.lineno + 1
            if function_lines > FUNCTION_LIMIT:
                found.append(
                    (
                        node.lineno,
                        f"{path}:{node.lineno}: function {node.name} is {function_lines} lines (limit {FUNCTION_LIMIT})",
                    )
                )
    return [line for _, line in sorted(found, key=lambda offender: offender[0])]


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    found = [line for path in python_files(root) if (root / path).is_file() for line in offenders(root, path)]
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
