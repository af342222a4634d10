#!/usr/bin/env python3
"""The layering check (doc/design.md, "Layers").

Reads the layer table of doc/design.md and the target graph CMake wrote
(BUILD/ibsm_targets.txt, cmake/house_checks.cmake), and judges every quoted
#include of every file that a target builds:
  - the header included belongs to the including file's own target or to one
    it links, directly or through others;
  - the header's folder is not above the including file's in the layer table;
  - every library's folder, and every header a library's files include, has
    a place: a row of the table, and an owning target.
Prints one line per problem, file:line first, and exits 1 if there is any.

usage: check_layers.py BUILD_DIR [--root DIR]
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
ROW = re.compile(r'^\|\s*(\d+)\s*\|\s*`([^`]+)`\s*\|')


def read_layer_table(path):
    """folder -> layer, from the rows `| N | `folder` | ...` of the design doc."""
    layers = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = ROW.match(line)
            if m:
                folder = m.group(2).strip("/")
                if folder in layers:
                    sys.exit(f"{path}:{n}: folder {folder} is in the layer table twice")
                layers[folder] = int(m.group(1))
    if not layers:
        sys.exit(f"{path}: no layer table found (rows like '| 1 | `mad/base` | ...')")
    return layers


def read_targets(path):
    """name -> {type, folder, sources, links}, from ibsm_targets.txt."""
    targets = {}
    current = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if words[0] == "target":
                current = {"type": words[2], "folder": words[3] if len(words) > 3 else "",
                           "sources": [], "links": []}
                targets[words[1]] = current
            elif words[0] == "source":
                current["sources"].append(words[1])
            elif words[0] == "link":
                current["links"].append(words[1])
    return targets


def closure(targets, name):
    """The targets `name` links, directly or through others."""
    seen = set()
    todo = list(targets[name]["links"])
    while todo:
        t = todo.pop()
        if t in seen or t not in targets:
            continue
        seen.add(t)
        todo.extend(targets[t]["links"])
    return seen


def layer_of(layers, path):
    """The layer of the longest folder of the table that holds `path`, or None."""
    folder = os.path.dirname(path)
    while True:
        if folder in layers:
            return folder, layers[folder]
        if not folder:
            return None, None
        folder = os.path.dirname(folder)


def is_library(info):
    return info["type"] in ("STATIC_LIBRARY", "SHARED_LIBRARY", "INTERFACE_LIBRARY", "OBJECT_LIBRARY")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    design = os.path.join(root, "doc", "design.md")
    layers = read_layer_table(design)
    targets = read_targets(os.path.join(args.build, "ibsm_targets.txt"))

    owners = {}  # file -> targets that build it
    for name, info in targets.items():
        for s in info["sources"]:
            owners.setdefault(s, set()).add(name)

    problems = []
    for name, info in sorted(targets.items()):
        if is_library(info) and info["type"] != "OBJECT_LIBRARY" and info["sources"] and not info["folder"].startswith("tests"):
            if layer_of(layers, info["sources"][0])[0] is None:
                problems.append(f"{design}: library {name} ({info['folder']}) has no row in the layer table")

    checked = set()
    for name, info in sorted(targets.items()):
        reach = closure(targets, name) | {name}
        for src in info["sources"]:
            if (name, src) in checked:
                continue
            checked.add((name, src))
            path = os.path.join(root, src)
            if not os.path.exists(path):
                continue
            src_folder, src_layer = layer_of(layers, src)
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    candidates = [os.path.normpath(os.path.join(os.path.dirname(src), inc)), os.path.normpath(inc)]
                    header = next((c for c in candidates if os.path.exists(os.path.join(root, c))), None)
                    if header is None or header.startswith(".."):
                        continue  # a generated file or a system header in quotes
                    where = f"{src}:{n}"
                    inc_folder, inc_layer = layer_of(layers, header)
                    if src_layer is not None and inc_layer is not None and inc_layer > src_layer:
                        problems.append(f"{where}: includes {header}: layer {inc_layer} ({inc_folder}) is above "
                                        f"layer {src_layer} ({src_folder})")
                    held_by = owners.get(header)
                    if not held_by:
                        if header.startswith("tests/") and src.startswith(("tests/", "bench/")):
                            continue  # a test helper header: the suites share it
                        problems.append(f"{where}: includes {header}, which no target owns (list it among "
                                        f"the sources of its library)")
                        continue
                    if not (held_by & reach):
                        problems.append(f"{where}: includes {header} of {', '.join(sorted(held_by))}, "
                                        f"which {name} does not link")
    for p in sorted(set(problems)):
        print(p)
    if problems:
        print(f"layering: {len(set(problems))} problems")
        return 1
    print(f"layering: {len(checked)} files of {len(targets)} targets checked, no problem")
    return 0


if __name__ == "__main__":
    sys.exit(main())
