#!/usr/bin/env python3
"""check_layers.py: the layers of the code call only downward (ARCHITECTURE.md).

Rooms, lowest first: codec, ptx, kernels, shim/base, shim/engine, shim/hooks;
sim and tools sit beside the library and never inside it. A file may include
headers and call functions only of its own layer or the ones below. Checked from
#include lines and from calls to functions defined in other files (C, by name).
Exit 1 with one line per violation. Usage: check_layers.py [repository root]."""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
LAYERS = ["codec", "ptx", "kernels", "shim/base", "shim/engine", "shim/hooks"]
RANK = {name: i for i, name in enumerate(LAYERS)}


def layer_of(rel):
    for name in sorted(LAYERS, key=len, reverse=True):
        if rel == name or rel.startswith(name + "/"):
            return name
    return None


def sources():
    for name in LAYERS:
        top = os.path.join(ROOT, name)
        for dirpath, _, files in os.walk(top):
            rel_dir = os.path.relpath(dirpath, ROOT)
            # deeper rooms are listed on their own (shim/base is not shim)
            if layer_of(rel_dir) != name:
                continue
            for f in files:
                if f.endswith((".c", ".h", ".cu", ".cuh", ".def")):
                    yield os.path.join(rel_dir, f)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


DEF = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b((?:ft|ftk|gpuft)_\w+)\s*\(([^;{]*)\)\s*\{", re.M)
CALL = re.compile(r"\b((?:ft|ftk|gpuft)_\w+)\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    files = sorted(set(sources()))
    header_layer, defined = {}, {}
    for rel in files:
        if rel.endswith((".h", ".cuh", ".def")):
            header_layer.setdefault(os.path.basename(rel), layer_of(rel))
    texts = {}
    for rel in files:
        with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as fh:
            texts[rel] = strip_comments(fh.read())
        for m in DEF.finditer(texts[rel]):
            defined.setdefault(m.group(1), rel)
    bad = []
    for rel in files:
        mine = RANK[layer_of(rel)]
        text = texts[rel]
        for inc in INCLUDE.findall(text):
            lay = header_layer.get(os.path.basename(inc))
            if lay is not None and RANK[lay] > mine:
                bad.append(f"{rel}: includes {inc} ({lay} is above {layer_of(rel)})")
        for name in set(CALL.findall(text)):
            where = defined.get(name)
            if where and RANK[layer_of(where)] > mine:
                bad.append(f"{rel}: calls {name} (defined in {where}, above {layer_of(rel)})")
    for line in bad:
        print(line)
    print(f"check_layers: {len(files)} files, {len(defined)} functions, {len(bad)} upward references",
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
