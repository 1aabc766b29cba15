"""`python -m core.ops`: regenerate core/ops/lazy_table.py (the lazy families' names; core/ops/families.py).
Importing this module (as pydoc, documentation builders and test collectors do) writes nothing."""
if __name__ == "__main__":
    from .families import main

    main()
