#!/usr/bin/env python3
"""The layering of ARCHITECTURE.md, checked on the includes of src/: each part includes headers of its
own, of the parts below it and of the parts of its own level it is allowed; no two parts include each
other, directly or around a longer circle; every file lies in a known part; and only the top reaches
the public API (tandem.h).
Usage: check_layers.py <repository top>     check_layers.py --self-test  (the checker on small faulty trees)"""
import pathlib
import re
import sys
import tempfile

# The ground knows nothing above it; the middle nothing of the top; the model costs, it never selects
# (select includes model, not the other way round). Each part: the parts it may include besides itself.
GROUND = {"base", "schedule"}
MIDDLE = {"algorithms", "engine", "placement", "model", "select", "agents"}
MAY_INCLUDE = {
    "base": set(),
    "schedule": {"base"},
    "model": GROUND,
    "engine": GROUND,
    "placement": GROUND,
    "algorithms": GROUND | {"model"},  # the model's formulas size segments
    "select": GROUND | {"algorithms", "model", "placement"},
    "agents": GROUND | {"engine", "placement", "model"},
    "core": GROUND | MIDDLE,
    "dcp": GROUND | MIDDLE | {"core"},  # above core, as the interposer: a program on Tandem's API
    "interpose": GROUND | MIDDLE | {"core", "dcp"},
    "patterns": {"base"},  # the public API, and the ground's error messages
}
# The public API, the face of the top: no part below the top includes it.
TOP = {"core", "dcp", "interpose", "patterns"}
PUBLIC_HEADERS = {"tandem.h", "tandem_large_count.h", "tandem_patterns.h", "tandem_patterns.hpp"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_edges(top):
    """(part, included part, file, include) for every include of a header of src/ by a file of src/;
    the files in no known part; the public headers included below the top."""
    src = (pathlib.Path(top) / "src").resolve()
    edges, unknown, public = [], [], []
    for path in sorted(src.rglob("*.[ch]")):
        part = path.relative_to(src).parts[0]
        where = path.relative_to(pathlib.Path(top).resolve())
        if part not in MAY_INCLUDE:
            unknown.append(f"{where}: part '{part}' is not in check_layers.py")
            continue
        for name in INCLUDE.findall(path.read_text()):
            if name in PUBLIC_HEADERS:
                if part not in TOP:
                    public.append(f"{where}: includes the public {name} ({part} is below the top)")
                continue
            target = (path.parent / name).resolve()
            try:
                target_part = target.relative_to(src).parts[0]
            except ValueError:
                continue  # system headers
            if target_part != part:
                edges.append((part, target_part, str(where), name))
    return edges, unknown, public


def circles(edges):
    """Every circle of the graph of parts, each once, as a list of parts (first part repeated last)."""
    graph = {}
    for a, b, _, _ in edges:
        graph.setdefault(a, set()).add(b)
    found, seen = [], set()

    def walk(start, node, path):
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                cycle = path + [start]
                key = frozenset(cycle)
                if key not in seen:
                    seen.add(key)
                    found.append(cycle)
            elif nxt not in path and nxt > start:  # each circle found from its smallest part
                walk(start, nxt, path + [nxt])

    for start in sorted(graph):
        walk(start, start, [start])
    return found


def main(top):
    edges, wrong, public = include_edges(top)
    wrong += public
    for a, b, where, name in edges:
        if b not in MAY_INCLUDE[a]:
            wrong.append(f"{where}: includes {name} ({a} may not include {b})")
    for cycle in circles(edges):
        steps = []
        for a, b in zip(cycle, cycle[1:]):
            example = next(where for x, y, where, _ in edges if (x, y) == (a, b))
            steps.append(f"{a} -> {b} ({example})")
        wrong.append("circle: " + ", ".join(steps))
    for line in wrong:
        print(line)
    parts = sorted({a for a, _, _, _ in edges} | {b for _, b, _, _ in edges})
    print(f"layers: {len(wrong)} problems" if wrong else
          f"layers: {len(parts)} parts, every include within its part or below, no circle")
    return 1 if wrong else 0


def self_test():
    """Each fault the check must find, in a tree of a few files, and a tree without one."""
    cases = {  # files: (path, includes); what the report must say, or None for a clean tree
        "clean": ([("base/a.h", []), ("model/m.c", ["../base/a.h"]), ("core/c.c", ["../model/m.h", "tandem.h"]),
                   ("model/m.h", [])], None),
        "upward": ([("engine/e.c", ["../core/c.h"]), ("core/c.h", [])], "engine may not include core"),
        "circle of two": ([("model/m.c", ["../select/s.h"]), ("model/m.h", []), ("select/s.c", ["../model/m.h"]),
                           ("select/s.h", [])], "circle: model -> select"),
        "circle of three": ([("core/c.c", ["../dcp/d.h"]), ("core/c.h", []), ("dcp/d.c", ["../interpose/i.h"]),
                             ("dcp/d.h", []), ("interpose/i.c", ["../core/c.h"]), ("interpose/i.h", [])],
                            "circle: core -> dcp"),
        "unknown part": ([("misc/x.c", [])], "part 'misc' is not in check_layers.py"),
        "public API below the top": ([("select/s.c", ["tandem.h"])], "includes the public tandem.h"),
    }
    import contextlib
    import io
    failed = 0
    for name, (files, expected) in cases.items():
        with tempfile.TemporaryDirectory() as top:
            for path, includes in files:
                f = pathlib.Path(top) / "src" / path
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_text("".join(f'#include "{i}"\n' for i in includes))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = main(top)
        ok = rc == 0 if expected is None else rc == 1 and expected in out.getvalue()
        if not ok:
            failed += 1
            print(f"self-test '{name}': exit {rc}, expected {'0' if expected is None else repr(expected)}:\n"
                  + out.getvalue())
    print(f"check_layers self-test: {len(cases) - failed} of {len(cases)} cases as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
