#!/usr/bin/env python3
"""The layering of ARCHITECTURE.md, checked on the includes: a layer includes headers of its own layer
and of the layers below it only. Usage: check_layers.py <repository top>."""
import pathlib
import re
import sys

# Each layer and the layers it may include besides itself. The ground (base, schedule) knows nothing
# above it; the middle (algorithms, engine, placement, select, model) nothing of the top (core, agents,
# interpose, patterns).
GROUND = {"base", "schedule"}
MIDDLE = {"algorithms", "engine", "placement", "select", "model"}
MAY_INCLUDE = {
    "base": set(),
    "schedule": {"base"},
    **{layer: GROUND | MIDDLE for layer in MIDDLE},
    "agents": GROUND | MIDDLE | {"core"},
    "core": GROUND | MIDDLE | {"agents"},
    "patterns": {"base"},  # the public API, and the ground's error messages (TDM_Last_error)
    "interpose": GROUND | MIDDLE | {"core", "agents"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main(top):
    src = pathlib.Path(top) / "src"
    wrong = []
    for path in sorted(src.rglob("*.[ch]")):
        layer = path.relative_to(src).parts[0]
        allowed = MAY_INCLUDE.get(layer)
        if allowed is None:
            wrong.append(f"{path.relative_to(top)}: layer '{layer}' is not in check_layers.py")
            continue
        for name in INCLUDE.findall(path.read_text()):
            target = (path.parent / name).resolve()
            try:
                target_layer = target.relative_to(src.resolve()).parts[0]
            except ValueError:
                continue  # outside src/: the public headers (tandem.h) and system headers
            if target_layer != layer and target_layer not in allowed:
                wrong.append(f"{path.relative_to(top)}: includes {name} ({target_layer} is above {layer})")
    for line in wrong:
        print(line)
    print(f"layers: {len(wrong)} includes against the layering" if wrong else "layers: every include within its layer or below")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
