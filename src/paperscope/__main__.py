"""Run the CLI as ``python -m paperscope``."""

from ._entry import main

main()
