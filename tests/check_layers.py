#!/usr/bin/env python3
"""check_layers.py - the include graph of the source tree, checked against the layer order.

The layers, bottom to top (docs/design.md):
    include < core < platform < kernels < ops < models < runtime < harness < tools
A file may include headers of its own layer and of the layers below it. This script reads
every `#include "..."` of the layer folders, resolves it the way the build does (the
including file's folder first, then the include folders of the layers), and prints:
  - every include that crosses folders, as `from-folder -> to-folder  file: header`
    (with --list), and
  - every violation: an include that points up the stack, a header that resolves nowhere or
    to two folders, a cycle between folders, or a file of the program (tools/) that includes
    a library header other than samrt.h and runtime/samrt_internal.h (the program's doors;
    the harness is a layer of its own that it may use) or tests for the backend with
    SAMRT_HAVE_CUDA (samrt_has_cuda() says which one the library has), or a file of the
    networks or the runtime (KERNEL_FREE) that includes a kernels/ header: they reach the
    kernels through the op layer (ops/ops*.h), which is the only one to pick a backend.
Exit status: 0 when the stack is one-way, 1 when something is wrong, 2 on bad usage.

    python3 tests/check_layers.py            # violations only
    python3 tests/check_layers.py --list     # every include that crosses folders
    python3 tests/check_layers.py --root DIR # another checkout

Only the C / CUDA sources of the library, the harness and the program are layered; tests/
may include any layer (they test each one from the outside).
"""
import argparse
import os
import re
import sys

LAYERS = ["include", "core", "platform", "kernels", "ops", "models", "runtime", "harness", "tools"]
SOURCE_EXT = (".c", ".h", ".cu", ".cuh")
# What the program (tools/) may include from the layers below the harness.
PROGRAM_DOORS = {"runtime/samrt_internal.h"}
# Layers that reach kernels/ only through ops/ (its headers may re-export a kernel's types).
KERNEL_FREE = ["models", "runtime"]
BACKEND_RE = re.compile(r"^\s*#\s*(?:if|ifdef|ifndef|elif)\b.*\bSAMRT_HAVE_CUDA\b", re.M)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(folder):
    """The layer of a folder relative to the root ('models/sam2' -> 'models')."""
    top = folder.split("/", 1)[0]
    return top if top in LAYERS else None


def source_files(root):
    for layer in LAYERS:
        base = os.path.join(root, layer)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXT):
                    yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def search_folders(root):
    """The include folders of the build (CMakeLists.txt, samrt_layer): each layer folder, the
    model-specific kernels (kernels/sam2) and the model families under models/ (models/sam2,
    models/edgetam)."""
    folders = list(LAYERS)
    if os.path.isdir(os.path.join(root, "kernels", "sam2")):
        folders.append("kernels/sam2")
    models = os.path.join(root, "models")
    for name in sorted(os.listdir(models)):
        if os.path.isdir(os.path.join(models, name)):
            folders.append("models/" + name)
    return folders


def resolve(root, src, header, folders):
    """The files `#include "header"` in src may mean: the including folder first (as the
    compiler does), else every include folder holding it."""
    here = os.path.dirname(src)
    local = os.path.normpath(os.path.join(here, header)).replace(os.sep, "/")
    if os.path.isfile(os.path.join(root, local)):
        return [local]
    hits = []
    for f in folders:
        cand = os.path.normpath(os.path.join(f, header)).replace(os.sep, "/")
        if os.path.isfile(os.path.join(root, cand)):
            hits.append(cand)
    return hits


def find_cycles(edges):
    """Strongly connected components of more than one folder (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    nodes = sorted(set(edges) | {d for v in edges.values() for d in v})

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description="check that includes only point down the layer stack")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--list", action="store_true", help="print every include that crosses folders")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    missing = [l for l in LAYERS if not os.path.isdir(os.path.join(root, l))]
    if missing:
        print(f"check_layers: {root} lacks the layer folders {', '.join(missing)}", file=sys.stderr)
        return 2

    folders = search_folders(root)
    problems, crossing = [], []
    edges = {}  # layer -> layers it includes from
    folder_edges = {}  # folder -> folders it includes from (models/sam2 -> models/edgetam, ...)
    n_files = n_includes = 0
    for src in source_files(root):
        n_files += 1
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        src_dir = os.path.dirname(src)
        src_layer = layer_of(src_dir)
        if src_layer == "tools" and BACKEND_RE.search(text):
            problems.append(f"{src}: tests SAMRT_HAVE_CUDA: the program asks samrt_has_cuda() instead")
        for header in INCLUDE_RE.findall(text):
            n_includes += 1
            hits = resolve(root, src, header, folders)
            if not hits:
                problems.append(f"{src}: \"{header}\" resolves to no file of the tree")
                continue
            if len(hits) > 1:
                problems.append(f"{src}: \"{header}\" is ambiguous: {', '.join(hits)}")
                continue
            dst_dir = os.path.dirname(hits[0])
            if dst_dir == src_dir:
                continue
            crossing.append(f"{src_dir} -> {dst_dir}  {src}: \"{header}\"")
            folder_edges.setdefault(src_dir, set()).add(dst_dir)
            dst_layer = layer_of(dst_dir)
            if LAYERS.index(dst_layer) > LAYERS.index(src_layer):
                problems.append(f"{src}: \"{header}\" points up the stack ({src_layer} -> {dst_layer})")
            elif src_layer == "tools" and dst_layer not in ("include", "harness") and hits[0] not in PROGRAM_DOORS:
                problems.append(f"{src}: \"{header}\" is internal to {dst_layer}/: the program uses samrt.h, "
                                f"runtime/samrt_internal.h and the harness")
            elif (src_layer in KERNEL_FREE and dst_layer == "kernels"):
                problems.append(f"{src}: \"{header}\" is a kernels/ header: {src_layer}/ reaches the kernels "
                                f"through the op layer (ops/ops*.h)")
            if dst_layer != src_layer:
                edges.setdefault(src_layer, set()).add(dst_layer)
    for comp in find_cycles(edges):
        problems.append("cycle between layers: " + " <-> ".join(comp))
    for comp in find_cycles(folder_edges):
        problems.append("cycle between folders: " + " <-> ".join(comp))

    if args.list:
        for line in sorted(crossing):
            print(line)
    for p in problems:
        print("check_layers: " + p)
    n_up = len(problems)
    print(f"check_layers: {n_files} files, {n_includes} includes, {len(crossing)} cross folders, "
          f"{n_up} problem{'s' if n_up != 1 else ''}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
