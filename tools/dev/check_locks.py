#!/usr/bin/env python3
"""check_locks.py: the engine's lock discipline, checked by the compiler.

Runs clang's thread-safety analysis (-Wthread-safety, as errors) over the library's
sources: the engine lock is a capability (shim/engine/state/state.h), functions
that need it held say FT_REQUIRES, functions that let go of it and take it back
carry `_relocking` in their name (shim/base/ft.h). Exit 0 clean, 1 with clang's
messages, 77 (ctest's skip) when no clang is installed.
Usage: check_locks.py CLANG ROOT -I<dir>... [-D<def>...]"""
import glob
import os
import shutil
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    clang, root, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not clang or clang.endswith("NOTFOUND") or not shutil.which(clang):
        print("check_locks: SKIP: clang is not installed (tools/dev/install-deps installs it)")
        return 77
    sources = sorted(glob.glob(os.path.join(root, "shim", "*", "*.c")) +
                     glob.glob(os.path.join(root, "shim", "engine", "*", "*.c")))
    bad = 0
    for src in sources:
        r = subprocess.run([clang, "-fsyntax-only", "-std=gnu11", "-Wthread-safety",
                            "-Werror=thread-safety", "-Wno-unknown-warning-option"] + flags + [src],
                           capture_output=True, text=True)
        if r.returncode != 0:
            bad += 1
            sys.stdout.write(r.stderr)
    print(f"check_locks: {len(sources)} files, {bad} with thread-safety errors")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
