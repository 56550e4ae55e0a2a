#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # A missing, unreachable or unmigrated database is one line and exit status 1, not a traceback.
    from config.startup import run_command

    sys.exit(run_command(sys.argv))


if __name__ == "__main__":
    main()
