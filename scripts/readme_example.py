#!/usr/bin/env python3
"""Run the README's Dask example as a user would: as a script, in a folder holding what it names.

  readme_example.py README.md HEADING DIR MODEL DIGIT_NPY

Takes the first ```python block after the heading HEADING, writes it to DIR/example.py, puts
MODEL there as digits.so and 20 copies of the digit DIGIT_NPY ([1, 64]) as images.npy ([20, 64]),
runs `python3 example.py` in DIR and checks that it prints 20 classifications equal to the digit
the file name says (digit_<d>.npy). Exit status 0 when it does; the script's output otherwise."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np


def example(readme, heading):
    text = open(readme).read()
    at = text.index("\n### " + heading)
    m = re.compile(r"```python\n(.*?)```", re.S).search(text, at)
    return m.group(1)


def main(readme, heading, folder, model, digit_npy):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "example.py"), "w") as f:
        f.write(example(readme, heading))
    shutil.copyfile(model, os.path.join(folder, "digits.so"))
    digit = int(re.search(r"digit_(\d)", os.path.basename(digit_npy)).group(1))
    np.save(os.path.join(folder, "images.npy"), np.repeat(np.load(digit_npy).reshape(1, -1), 20, axis=0))
    run = subprocess.run([sys.executable, "example.py"], cwd=folder, capture_output=True, text=True, timeout=300)
    printed = [int(x) for x in re.findall(r"-?\d+", run.stdout)]
    if run.returncode != 0 or printed != [digit] * 20:
        sys.exit("the example printed %r (exit %d)\n%s\n%s" % (run.stdout, run.returncode, run.stdout, run.stderr))
    print("the README's example classified 20 images as %d" % digit)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
