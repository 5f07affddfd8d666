"""Run the CLI as ``python -m paperscope``."""

from .cli import cli

cli()
