"""Convert the real TVM exports' npz reference data to the .npy case layout the C++ tests read.
usage: convert_fixtures.py FIXTURES_DIR OUT_DIR   (writes OUT_DIR/<case>/{case.json,inputs,expected})"""
import json
import os
import shutil
import sys

import numpy as np


def main(src, dst):
    os.makedirs(dst, exist_ok=True)
    for case in sorted(os.listdir(src)):
        d = os.path.join(src, case)
        if not os.path.isfile(os.path.join(d, "case.json")):
            continue
        out = os.path.join(dst, case)
        os.makedirs(os.path.join(out, "inputs"), exist_ok=True)
        os.makedirs(os.path.join(out, "expected"), exist_ok=True)
        meta = json.load(open(os.path.join(d, "case.json")))
        # A graph export names its kind ("factory": model.so; "classic": the folder of mod.so,
        # mod.json and mod.params, which loads as one; "package": the tvmc .tar); the others a file.
        kind = meta["artifact"]
        path = {"factory": "model.so", "classic": "", "package": "model.tar"}.get(kind, kind)
        meta["artifact"] = os.path.join(d, path) if path else d
        meta.pop("params", None)  # fixtures list bound constants there, not factory params
        meta.setdefault("mod_name", "default")  # the GPU exports name no model: relay.build's default
        json.dump(meta, open(os.path.join(out, "case.json"), "w"), indent=1)
        for name, arr in np.load(os.path.join(d, "inputs.npz")).items():
            np.save(os.path.join(out, "inputs", "".join(c if c.isalnum() else "_" for c in name) + ".npy"), arr)
        expected = np.load(os.path.join(d, "expected.npz"))
        for i in range(len(expected.files)):
            np.save(os.path.join(out, "expected", f"output{i}.npy"), expected[f"arr_{i}"])
    open(os.path.join(dst, ".stamp"), "w").close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
