"""Where the tests find the project: ROOT (the checkout) and TESTS (this directory, with its data)."""
import os

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
