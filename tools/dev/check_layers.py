#!/usr/bin/env python3
"""check_layers.py: the layers of the code call only downward (ARCHITECTURE.md).

Rooms, lowest first: common (the fault grammar, "did you mean": used by the library
and the simulator alike), codec, ptx, kernels, shim/base, the engine's floors
(shim/engine/state, mech, store, policy, report; then shim/engine itself, the
umbrella header the hooks include), shim/hooks;
sim and tools sit beside the library and never inside it. A file may include
headers and call functions only of its own layer or the ones below. Checked from
#include lines and from calls to functions defined in other files (C, by name).

The simulator has rooms of its own, in their own order (SIM_LAYERS): the
interpreter, then the driver's base, mem, exec and api, then the runtime front
end. A simulator file may also use the library's codec and ptx, never kernels or
shim, and no library file may use the simulator. There the check also covers the
entry points called by name (cu*, simcuda*) and global variables (sim_*) defined
in another room; test folders, test lists and the public headers at sim/ top sit
outside, and any other simulator source outside a room is reported.
Inside the engine, files call each other without a cycle too (a floor's files among
themselves): the cross-file call graph of shim/engine is checked to be acyclic, and
a cycle is printed as one violation.
Exit 1 with one line per violation. Usage: check_layers.py [repository root]."""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
ENGINE_FLOORS = ["shim/engine/state", "shim/engine/mech", "shim/engine/store", "shim/engine/policy",
                 "shim/engine/report"]
LAYERS = ["common", "codec", "ptx", "kernels", "shim/base"] + ENGINE_FLOORS + ["shim/engine", "shim/hooks"]
RANK = {name: i for i, name in enumerate(LAYERS)}
SIM_LAYERS = ["sim/interp", "sim/driver/base", "sim/driver/mem", "sim/driver/exec", "sim/driver/api", "sim/cudart"]
SIM_RANK = {name: i for i, name in enumerate(SIM_LAYERS)}
SIM_MAY_USE = {"common", "codec", "ptx"}  # of the library's rooms
SIM_OUTSIDE = {"simcuda.h", "simcuda_twins.h", "test-list.h"}  # public API, test lists


def layer_of(rel):
    for name in sorted(LAYERS + SIM_LAYERS, key=len, reverse=True):
        if rel == name or rel.startswith(name + "/"):
            if name in SIM_RANK and "/tests" in "/" + rel[len(name):]:
                return None  # a room's tests may use anything
            return name
    return None


def allowed(mine, other):
    """May a file of room `mine` use room `other`?"""
    if mine in RANK and other in RANK:
        return RANK[other] <= RANK[mine]
    if mine in SIM_RANK and other in SIM_RANK:
        return SIM_RANK[other] <= SIM_RANK[mine]
    return mine in SIM_RANK and other in SIM_MAY_USE


def sources():
    for name in LAYERS + SIM_LAYERS:
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


DEF = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b((?:ftc|ft|ftk|gpuft)_\w+)\s*\(([^;{]*)\)\s*\{", re.M)
CALL = re.compile(r"\b((?:ftc|ft|ftk|gpuft)_\w+)\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# The simulator's names: its internal sim_*, its own simcuda* calls and the driver
# entry points (cu*, called by name inside the driver); an exported definition may
# carry an __attribute__ before its type.
SIM_DEF = re.compile(r"^(?!static\b)(?:__attribute__\(\(.*?\)\)\s+)?[A-Za-z_][\w \t\*]*?\b"
                     r"((?:sim_|simcuda|cu[A-Z])\w*)\s*\(([^;{]*)\)\s*\{", re.M)
SIM_CALL = re.compile(r"\b((?:sim_|simcuda|cu[A-Z])\w*)\s*\(")
SIM_VAR = re.compile(r"^(?!static\b|extern\b|typedef\b|return\b)[A-Za-z_][\w \t\*]*?\b(sim_\w+)\s*(?:=[^=]|;)", re.M)
SIM_NAME = re.compile(r"\b(sim_\w+)\b")


def header_layers(header_paths, rel, inc):
    """Rooms of the header an #include names: the including file's folder first,
    then its room, else every header of that name (ambiguous: all must be allowed)."""
    cands = [h for h in header_paths if h == inc or h.endswith("/" + inc)]
    here = [h for h in cands if os.path.dirname(h) == os.path.dirname(rel)]
    if here:
        return [layer_of(here[0])]
    same = [h for h in cands if layer_of(h) == layer_of(rel)]
    if same:
        return [layer_of(same[0])]
    return sorted({layer_of(h) for h in cands if layer_of(h)})


def engine_cycles(files, texts, defined):
    """One line per cycle in the cross-file call graph of the engine's files."""
    mine = [rel for rel in files if rel.startswith("shim/engine/") and rel.endswith(".c")]
    graph = {rel: sorted({defined[n] for n in CALL.findall(texts[rel])
                          if defined.get(n) in mine and defined[n] != rel}) for rel in mine}
    state, found = {}, []

    def visit(u, path):
        state[u] = 1
        path.append(u)
        for v in graph[u]:
            if state.get(v) == 1:
                found.append("engine call cycle: " + " -> ".join(path[path.index(v):] + [v]))
            elif not state.get(v):
                visit(v, path)
        path.pop()
        state[u] = 2

    for rel in mine:
        if not state.get(rel):
            visit(rel, [])
    return found


def main():
    files = sorted(f for f in set(sources()) if layer_of(f))
    headers = [rel for rel in files if rel.endswith((".h", ".cuh", ".def"))]
    defined, sim_defined, sim_vars = {}, {}, {}
    texts = {}
    for rel in files:
        with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as fh:
            texts[rel] = strip_comments(fh.read())
        for m in DEF.finditer(texts[rel]):
            defined.setdefault(m.group(1), rel)
        if layer_of(rel) in SIM_RANK:
            for m in SIM_DEF.finditer(texts[rel]):
                sim_defined.setdefault(m.group(1), rel)
            if rel.endswith(".c"):
                for m in SIM_VAR.finditer(texts[rel]):
                    sim_vars.setdefault(m.group(1), rel)
    bad = []
    for rel in files:
        mine = layer_of(rel)
        text = texts[rel]
        for inc in INCLUDE.findall(text):
            lays = header_layers(headers, rel, inc)
            if lays and not any(allowed(mine, lay) for lay in lays):
                bad.append(f"{rel}: includes {inc} ({'/'.join(lays)} may not be used from {mine})")
        uses = [(name, defined.get(name), "calls") for name in set(CALL.findall(text))]
        if mine in SIM_RANK:  # cu* is the CUDA API elsewhere, not the simulator's
            uses += [(name, sim_defined.get(name), "calls") for name in set(SIM_CALL.findall(text))]
            uses += [(name, sim_vars.get(name), "uses") for name in set(SIM_NAME.findall(text))]
        for name, where, verb in uses:
            if where and where != rel and not allowed(mine, layer_of(where)):
                bad.append(f"{rel}: {verb} {name} (defined in {where}, {layer_of(where)} may not be used from {mine})")
    # every simulator source sits in a room (or is a test, or the public API)
    for dirpath, _, names in os.walk(os.path.join(ROOT, "sim")):
        rel_dir = os.path.relpath(dirpath, ROOT)
        if "tests" in rel_dir.split(os.sep):
            continue
        for f in names:
            rel = os.path.join(rel_dir, f)
            if f.endswith((".c", ".h", ".cu", ".cuh", ".def")) and not layer_of(rel) and f not in SIM_OUTSIDE:
                bad.append(f"{rel}: in none of the simulator's rooms ({', '.join(SIM_LAYERS)})")
    bad += engine_cycles(files, texts, defined)
    for line in bad:
        print(line)
    print(f"check_layers: {len(files)} files, {len(defined)} functions, {len(bad)} upward references",
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
