#!/usr/bin/env python3
"""check_paths.py: the documents name files that exist.

Every file name in README.md, docs/*.md and tools/manpage.c that looks like a
source file (.c .h .cu .cuh .def .py .S .md .sh .json .txt) must exist: with a
folder, at that path from the repository root (or from the document's folder, for
links); bare, somewhere in the tree. A file moved without its documents fails here.
Exit 1 with one line per stale name. Usage: check_paths.py [repository root]."""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
NAME = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.(?:c|h|cu|cuh|def|py|S|md|sh|json|txt))(?![\w/])")
SKIP_DIRS = {".git", "build", "build-asan", "build-tsan", "build-consumer", "node_modules"}
# names that are not files of this tree: outputs, files of other projects, examples
NOT_OURS = re.compile(r"\.json$|CMakeFiles/|^share/|^include/|"  # outputs, build and install paths
                      r"^(x\.cu|app_twins\.c)$|"  # what a user writes, in examples
                      r"^(papers/README|DESIGN|ARCHITECTURE|STYLE)\.md$|"  # the project's shared notes
                      r"^(stdio|string|stdlib|fatbinary_section|cuda|cudaTypedefs|cuda_runtime)\.h$")


def tree_names():
    names, paths = set(), set()
    for dirpath, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")]
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), ROOT)
            names.add(f)
            paths.add(rel)
    return names, paths


def documents():
    yield "README.md"
    for f in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if f.endswith(".md"):
            yield os.path.join("docs", f)
    yield os.path.join("tools", "manpage.c")


def main():
    names, paths = tree_names()
    bad = []
    for doc in documents():
        full = os.path.join(ROOT, doc)
        if not os.path.exists(full):
            continue
        with open(full, encoding="utf-8", errors="replace") as fh:
            for ln, line in enumerate(fh, 1):
                for m in NAME.finditer(line):
                    name = m.group(1)
                    if NOT_OURS.search(name) or name.startswith(("http", "www.")):
                        continue
                    if "/" in name:
                        here = os.path.normpath(os.path.join(os.path.dirname(doc), name))
                        if name in paths or here in paths or any(p.endswith("/" + name) for p in paths):
                            continue
                    elif name in names:
                        continue
                    bad.append(f"{doc}:{ln}: {name} does not exist")
    for line in bad:
        print(line)
    print(f"check_paths: {len(bad)} stale file names", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
