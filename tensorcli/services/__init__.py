"""The work behind tensorcli's commands, as plain data: no Typer, no Rich.

run_op (one op command) and explain (its --explain rows), autograd (grad / graph / modes reports),
memory and models (memory runs, model specs), cases / checks / check_report (`tensorcli check`),
expr / expr_parse / expr_alloc (the safe expression language), functions (built-in example
autograd Functions), ops / show (listing, statistics), text (plain-text number formatting).
"""
