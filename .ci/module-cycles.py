#!/usr/bin/env python3
"""Finds import cycles between sibling modules of a crate.

An edge `a -> b` is recorded when a file of module `p::a` (or below it)
names `crate::p::b...` (or `super::...` resolving there): the two are
siblings under their common parent `p`. A module using its parent's or its
own children's items is not an edge. Cycles are the strongly connected
groups of two or more siblings. Test files (`tests.rs`, `*_tests.rs`,
`tests/` folders) do not count.

Usage: module-cycles.py CRATE_SRC_DIR...   (exit 1 when a cycle is found)
"""
import os
import re
import sys

PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
VIS = r"(?:pub(?:\([^)]*\))?\s+)?"
TEST_MOD_DECL = re.compile(r"#\[cfg\(test\)\]\s*" + VIS + r"mod\s+(\w+)\s*;")
USE_GROUP = re.compile(r"\buse\s+(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\}", re.S)


def module_of(src, path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


def is_test(rel):
    parts = rel.split(os.sep)
    return parts[-1] in ("tests.rs",) or parts[-1].endswith("_tests.rs") or "tests" in parts[:-1]


def strip_cfg_test(text):
    """Drops `#[cfg(test)] mod x { ... }` blocks (brace-matched)."""
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*" + VIS + r"mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def targets(text, here):
    """Every module path the text names through `crate::` or `super::`."""
    found = []

    def resolve(root, rest):
        segs = [s for s in rest.split("::") if s]
        if root == "crate":
            return tuple(segs)
        cur = list(here[:-1])  # `super` of module `here`
        while segs and segs[0] == "super":
            cur = cur[:-1]
            segs = segs[1:]
        return tuple(cur) + tuple(segs)

    for m in USE_GROUP.finditer(text):
        for item in re.split(r"[,\s]+", m.group(3)):
            item = item.split("::")[0].strip("{} ")
            if re.match(r"^[A-Za-z_]\w*$", item or ""):
                found.append(resolve(m.group(1), m.group(2) + "::" + item))
    for m in PATH.finditer(text):
        found.append(resolve(m.group(1), m.group(2)))
    return found


def crate_edges(src):
    files = {}
    for dirpath, _, names in os.walk(src):
        for n in names:
            if n.endswith(".rs"):
                p = os.path.join(dirpath, n)
                rel = os.path.relpath(p, src)
                if not is_test(rel):
                    files[p] = module_of(src, p)
    # Files declared `#[cfg(test)] mod name;` are tests too.
    for p in list(files):
        with open(p, encoding="utf-8") as f:
            decls = TEST_MOD_DECL.findall(f.read())
        base = os.path.dirname(p)
        if os.path.basename(p) not in ("mod.rs", "lib.rs", "main.rs"):
            base = os.path.join(base, os.path.basename(p)[:-3])
        for name in decls:
            for cand in (os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")):
                files.pop(cand, None)
    modules = set(files.values())
    edges = set()
    for p, here in files.items():
        with open(p, encoding="utf-8") as f:
            text = strip_cfg_test(re.sub(r"//.*", "", f.read()))
        for t in targets(text, here):
            while t and t not in modules:
                t = t[:-1]
            if not t:
                continue
            k = 0
            while k < min(len(here), len(t)) and here[k] == t[k]:
                k += 1
            if k == len(here) or k == len(t):
                continue  # parent or child, not a sibling
            edges.add((here[: k + 1], t[: k + 1]))
    return edges


def cycles(edges):
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    found = 0
    for src in sys.argv[1:]:
        edges = crate_edges(src)
        for group in cycles(edges):
            found += 1
            names = ["::".join(m) or "(crate)" for m in group]
            inner = [f"{'::'.join(a)} -> {'::'.join(b)}" for a, b in sorted(edges) if a in group and b in group]
            print(f"{src}: cycle between {', '.join(names)}")
            for e in inner:
                print(f"    {e}")
    if found:
        print(f"{found} import cycle(s)", file=sys.stderr)
        sys.exit(1)
    print("module cycles: none")


if __name__ == "__main__":
    main()
