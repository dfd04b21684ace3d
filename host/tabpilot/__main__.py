"""`python -m tabpilot` runs the `tabpilot` command."""

from .cli import main

main()
