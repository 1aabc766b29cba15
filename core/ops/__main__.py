"""`python -m core.ops`: regenerate core/ops/lazy_table.py (the lazy families' names; core/ops/families.py)."""
from .families import main

main()
