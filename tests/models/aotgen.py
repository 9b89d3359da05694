#!/usr/bin/python3
"""Entry point of the test-model generator; the code lives in the aotgen/ package next to it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aotgen.cli import main  # noqa: E402  (the package directory shadows this script's name)

if __name__ == "__main__":
    sys.exit(main())
