#!/usr/bin/env python
"""Regenerate tests/golden/seeds.json: what real PyTorch prints for each seed snippet in tests/seeds/."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "seed_runner.py"), "torch"],
                     capture_output=True, text=True, check=True).stdout
with open(os.path.join(ROOT, "tests", "golden", "seeds.json"), "w", encoding="utf-8") as f:
    f.write(out)
print("wrote tests/golden/seeds.json")
