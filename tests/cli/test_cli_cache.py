#!/usr/bin/env python3
"""Checks of `aotrt cache` (list, clear) on a cache directory filled by `aotrt run` of a generated
model whose constant pool goes through the cache (usmp_cached_c).

  /usr/bin/python3 tests/cli/test_cli_cache.py --aotrt BUILD/bin/aotrt --models BUILD/models

Exit status 0 when every check passes; failures are listed on stderr.
"""
import argparse
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_cli import FAILURES, check, expect_error  # noqa: E402


def run(args, env, *cmd):
    p = subprocess.run([args.aotrt] + [str(c) for c in cmd], capture_output=True, text=True, timeout=300, env=env)
    return p.returncode, p.stdout, p.stderr


def kinds(listing):
    out = {}
    for e in listing["entries"]:
        out.setdefault(e["kind"], []).append(e)
    return out


def test_list_and_clear(args, tmp):
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, AOTRT_CACHE_DIR=cache, AOTRT_CACHE_MAX_MB="64")
    model = os.path.join(args.models, "usmp_cached_c.so")
    rc, out, err = run(args, env, "cache")
    check(rc == 0 and "does not exist yet" in out, "cache on a missing directory: %d %r %r" % (rc, out, err))
    # `aotrt run` misses, exits, and its exit waits for the background writer: the file is there after.
    rc, out, err = run(args, env, "run", model, "--zeros")
    check(rc == 0, "run exit %d: %s" % (rc, err))
    copy = os.path.join(tmp, "renamed.so")
    shutil.copy(model, copy)  # the same bytes under another name: one more alias, no second pool
    # (5 files to clear: the pool, two aliases, an archive library, a dead writer's temporary)
    rc, out, err = run(args, env, "run", copy, "--zeros")
    check(rc == 0, "run of the copy exit %d: %s" % (rc, err))
    with open(os.path.join(cache, "mlf-0123.so"), "wb") as f:
        f.write(b"x" * 10)
    with open(os.path.join(cache, ".tmp-dead-writer"), "wb") as f:
        f.write(b"y" * 5)
    with open(os.path.join(cache, "notes.txt"), "w") as f:
        f.write("mine")
    rc, out, err = run(args, env, "cache", "list", "--json")
    check(rc == 0, "cache list --json exit %d: %s" % (rc, err))
    j = json.loads(out) if rc == 0 else {"entries": []}
    k = kinds(j)
    check(j.get("directory") == cache and j.get("exists") is True, "directory %r" % j.get("directory"))
    check(j.get("max_bytes") == 64 << 20, "max_bytes %r (AOTRT_CACHE_MAX_MB=64)" % j.get("max_bytes"))
    pools = k.get("constant pool", [])
    check(len(pools) == 1, "one pool for two names of the same bytes: %r" % pools)
    check(len(k.get("alias", [])) == 2, "two aliases: %r" % k.get("alias"))
    if pools:
        check(pools[0]["valid"] and pools[0]["model"].endswith("usmp_cached_c.so"), "pool entry %r" % pools[0])
        check(pools[0]["bytes"] > 64 << 10 and j["pool_bytes"] == pools[0]["bytes"], "pool bytes %r" % pools[0])
        check(all(a["target"] == pools[0]["name"] and a["valid"] for a in k.get("alias", [])), "alias targets")
    check([e["name"] for e in k.get("archive library", [])] == ["mlf-0123.so"], "archive libraries %r" % k)
    check(len(k.get("temporary", [])) == 1 and len(k.get("other", [])) == 1, "temporary / other %r" % k)
    check(j.get("total_bytes") == sum(e["bytes"] for e in j["entries"]), "total_bytes %r" % j.get("total_bytes"))
    rc, out, err = run(args, env, "cache")
    for needle in ("constant pool", "alias", "archive library", "usmp_cached_c.so", "of the 64.0 MiB", cache):
        check(needle in out, "cache list text: %r not in %r" % (needle, out))
    # clear waits for the directory lock: held here, it gives up after --wait-ms, naming the lock.
    with open(os.path.join(cache, ".lock"), "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        rc, out, err = run(args, env, "cache", "clear", "--wait-ms", "50")
        check(rc == 2 and ".lock" in err and "50 ms" in err, "clear under a held lock: %d %r" % (rc, err))
    rc, out, err = run(args, env, "cache", "clear")
    check(rc == 0 and "removed 5 files" in out, "cache clear: %d %r %r" % (rc, out, err))
    check(sorted(os.listdir(cache)) == [".lock", "notes.txt"], "left after clear: %r" % os.listdir(cache))
    rc, out, err = run(args, env, "cache", "--dir", cache, "--json")
    check(rc == 0 and json.loads(out)["pool_bytes"] == 0, "after clear: %r" % out)


def test_errors(args, tmp):
    path = os.path.join(tmp, "a-file")
    with open(path, "w") as f:
        f.write("x")
    expect_error(args, 2, "is not a directory", "cache", "--dir", path)
    expect_error(args, 2, "is not a directory", "cache", "clear", "--dir", path)
    expect_error(args, 1, "wait-ms", "cache", "clear", "--wait-ms", "-5")
    expect_error(args, 1, "purge", "cache", "purge")
    env = {k: v for k, v in os.environ.items() if k not in ("AOTRT_CACHE_DIR", "XDG_CACHE_HOME", "HOME")}
    rc, out, err = run(args, env, "cache")
    check(rc == 2 and "no cache directory" in err, "no directory set: %d %r" % (rc, err))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--aotrt", required=True)
    ap.add_argument("--models", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        test_list_and_clear(args, tmp)
        test_errors(args, tmp)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        return 1
    print("aotrt cache: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
