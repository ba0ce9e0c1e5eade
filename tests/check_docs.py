#!/usr/bin/env python3
"""Checks README.md and docs/*.md against the code.

    tests/check_docs.py <repository top>

(a) Environment variables. The TANDEM_* variables the code reads (src/, tools/, apps/, sim/, scripts/: C
    string literals that are exactly a variable's name, as getenv and the helpers that take a name are
    called; the per-collective TANDEM_<COLLECTIVE> names built with "TANDEM_%s" from the selection
    table; ${TANDEM_X} in shell; os.environ.get / os.getenv in Python) against those the docs name.
    Fails if a table names a variable the code does not read, if the code reads a user-facing variable
    that no table documents or that README.md's table lacks, or if the prose names a variable that is
    neither read nor a CMake option.
(b) Options. Every --option in a code span or code block, attributed to the tool named before it on
    that line (tandem-bench, tandem-model, tandem-run, p2p-floor, tandem-fft3d, tandem-pcompress,
    tandem-cg, sim/run and what follows its "--" (tandem-bench's, or with --app NAME tandem-NAME's),
    sim/make-platform, scripts/*, sim/studies/*.py, tools/*.py) or else to the tool the section's
    heading names ("## tandem-bench"), must be in that tool's source as a string literal (C, Python)
    or a word of its code (shell). An option with neither must be in some tool's source. Options of
    other programs (mpirun's, cmake's: FOREIGN_OPTIONS, FOREIGN_COMMANDS) are not looked for.
(c) Links. Every relative Markdown link must name a file of the repository that exists (and, for
    #anchors into Markdown files, a heading that exists).

Prints one line on success; otherwise every problem, and exits 1. Standard library only.
"""
import glob
import os
import re
import sys

# Variables the code reads that users do not set; they need no table row.
IGNORED_VARIABLES = {
    # testing only: a tiny tag range forces tags to wrap early (tests/ set it; src/core reads it)
    "TANDEM_TAG_RANGE",
    # testing only: every communicator gets a duplicate of its own instead of a slot of the shared one
    "TANDEM_OWN_DUPLICATES",
    # testing only: few own slots per rank, so that they must come back to be reused
    "TANDEM_OWN_SLOTS",
    # testing only: few tags among the DCPs for a communicator's calls, so that calls wait for them
    "TANDEM_DCP_WINDOW",
    # testing only: a short first part of a client's message, so that its members or counts follow apart
    "TANDEM_DCP_FIRST_BYTES",
    # testing only: call numbers that start near their wrap at 2^32, so that a short run passes it
    "TANDEM_DCP_FIRST_CALL",
    # testing only: few slots of tags a DCP lends communicators, so that some wait for one to come back
    "TANDEM_DCP_SLOTS",
    # set by sim/run for every simulated run; users switch it off with sim/run --compute-data
    "TANDEM_SMPI_TIMING_ONLY",
    # set by tandem-run --dcp-ratio for the interposer: the job's extra ranks must never run the program
    "TANDEM_DCP_ADDED",
}

# Options of other programs that appear in command lines without their program in front (mpirun's,
# cmake's, pkg-config's, ...); anything here is not looked for in Tandem's sources.
FOREIGN_OPTIONS = {"--bind-to", "--oversubscribe", "--report-bindings", "--build", "--install", "--prefix",
                   "--cflags", "--libs", "--output-on-failure", "--tool"}

# Commands whose options are not Tandem's.
FOREIGN_COMMANDS = {"cmake", "ctest", "mpirun", "mpiexec", "mpirun.openmpi", "mpiexec.mpich", "smpirun",
                    "pkg-config", "mpicc", "mpicc.mpich", "mpicc.openmpi", "gcc", "cc", "valgrind", "sudo",
                    "apt-get", "git", "sysctl", "python3", "env", "export", "make", "ninja"}

VAR = re.compile(r"TANDEM_[A-Z0-9_]*[A-Z0-9]")
APPS = ("fft3d", "pcompress", "cg")
OPTION = re.compile(r"--[a-z][a-z0-9-]*")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def kind_of(path):
    """'c', 'python' or 'shell' (by extension, else by the #! line); None for other files."""
    if path.endswith((".c", ".h")):
        return "c"
    if path.endswith(".py"):
        return "python"
    if path.endswith(".sh"):
        return "shell"
    try:
        first = read(path).split("\n", 1)[0]
    except OSError:
        return None
    if first.startswith("#!"):
        return "python" if "python" in first else "shell" if "sh" in first else None
    return None


C_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
PY_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')


def c_strings(text):
    """The string literals of C source, comments left out."""
    return [t[1:-1] for t in C_TOKEN.findall(text) if t.startswith('"')]


def shell_code(text):
    """Shell source without its comment lines."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def source_files(top):
    """The files whose variables and options count: src/, tools/, apps/, sim/, scripts/."""
    files = []
    for sub in ("src", "tools", "apps", "sim", "scripts"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(top, sub)):
            dirnames[:] = [d for d in dirnames if d not in ("results", "__pycache__")]
            for name in filenames:
                path = os.path.join(dirpath, name)
                if kind_of(path):
                    files.append(path)
    return sorted(files)


# ---- (a) environment variables ----

def variables_read(top, problems):
    """{variable: first file reading it}."""
    found = {}
    for path in source_files(top):
        text, kind, rel = read(path), kind_of(path), os.path.relpath(path, top)
        names = []
        if kind == "c":
            strings = c_strings(text)
            names += [s for s in strings if VAR.fullmatch(s)]
            if "TANDEM_%s" in strings:  # TANDEM_<COLLECTIVE>, from the selection table's names
                collectives = re.findall(r'\bTABLE\(\s*"([a-z_]+)"', text)
                if not collectives:
                    problems.append(f'{rel}: builds "TANDEM_%s" names, but check_docs.py finds no TABLE("...") '
                                    "collective names there: update check_docs.py")
                names += ["TANDEM_" + c.upper() for c in collectives]
        elif kind == "shell":
            names += re.findall(r"\$\{?(TANDEM_[A-Z0-9_]*[A-Z0-9])", shell_code(text))
        elif kind == "python":
            names += re.findall(r"""(?:environ\.get|getenv)\(\s*["'](TANDEM_[A-Z0-9_]*[A-Z0-9])["']""", text)
            names += re.findall(r"""environ\[\s*["'](TANDEM_[A-Z0-9_]*[A-Z0-9])["']\s*\](?!\s*=[^=])""", text)
        for n in names:
            found.setdefault(n, rel)
    return found


def cmake_options(top):
    names = set()
    for path in glob.glob(os.path.join(top, "**", "CMakeLists.txt"), recursive=True):
        if os.path.relpath(path, top).split(os.sep)[0].startswith("build"):  # build trees
            continue
        text = read(path)
        names.update(re.findall(r"\boption\(\s*(TANDEM_[A-Z0-9_]+)", text))
        names.update(re.findall(r"\bset\(\s*(TANDEM_[A-Z0-9_]+)[^)]*\bCACHE\b", text))
    return names


# ---- Markdown ----

def doc_files(top):
    return [os.path.join(top, "README.md")] + sorted(glob.glob(os.path.join(top, "docs", "*.md")))


def split_markdown(text):
    """(prose lines with their numbers, code-block lines with their numbers)."""
    prose, code, fence = [], [], None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if fence:
            if stripped.startswith(fence):
                fence = None
            else:
                code.append((number, line))
            continue
        m = re.match(r"(```+|~~~+)", stripped)
        if m:
            fence = m.group(1)
            continue
        prose.append((number, line))
    return prose, code


def code_spans(line):
    return re.findall(r"(`+)(.+?)\1", line)


def without_code_spans(line):
    return re.sub(r"(`+)(.+?)\1", " ", line)


def variables_named(line):
    """TANDEM_* names in a line, CMake options (-DTANDEM_X) left out."""
    return [m.group(0) for m in VAR.finditer(line) if line[max(0, m.start() - 2):m.start()] != "-D"]


# ---- (b) options ----

def tool_sources(top):
    """{tool key: (kind, [files])}."""
    tools = {
        "tandem-bench": ("c", glob.glob(os.path.join(top, "tools", "tandem_bench.c")) +
                         glob.glob(os.path.join(top, "tools", "bench*.c")) + glob.glob(os.path.join(top, "tools", "bench*.h"))),
        "tandem-model": ("c", [os.path.join(top, "tools", "tandem_model.c")]),
        "tandem-run": ("shell", [os.path.join(top, "tools", "tandem-run.in")]),
        "p2p-floor": ("c", [os.path.join(top, "tools", "p2p_floor.c")]),
        "sim/run": ("python", [os.path.join(top, "sim", "run")]),
        **{f"tandem-{app}": ("c", glob.glob(os.path.join(top, "apps", app, "*.c")) +
                             glob.glob(os.path.join(top, "apps", "common", "*.c")))
           for app in APPS},
        "sim/make-platform": ("python", [os.path.join(top, "sim", "make-platform")]),
    }
    for path in glob.glob(os.path.join(top, "scripts", "*")):
        kind = kind_of(path)
        if kind and not path.endswith(".sh"):
            extra = [os.path.join(top, "scripts", "common.sh")] if kind == "shell" else []
            tools["scripts/" + os.path.basename(path)] = (kind, [path] + extra)
    for path in glob.glob(os.path.join(top, "sim", "studies", "*.py")):
        tools["sim/studies/" + os.path.basename(path)] = ("python", [path, os.path.join(top, "sim", "studies", "common.py")])
    for path in glob.glob(os.path.join(top, "tools", "*.py")):
        tools["tools/" + os.path.basename(path)] = ("python", [path])
    return {k: (kind, [f for f in files if os.path.exists(f)]) for k, (kind, files) in tools.items()}


def options_in(kind, files):
    """The options a tool's source knows."""
    known = set()
    for path in files:
        text = read(path)
        if kind == "c":
            known.update(s for s in c_strings(text) if OPTION.fullmatch(s))
        elif kind == "python":
            known.update(s[1:-1] for s in PY_STRING.findall(text) if OPTION.fullmatch(s[1:-1]))
            if "argparse" in text:
                known.add("--help")
        else:
            known.update(m.group(0) for m in re.finditer(r"(?<![\w-])--[a-z][a-z0-9-]*(?![\w-])", shell_code(text)))
    return known


def tool_of(token, tools):
    """The tool a command-line word names, 'foreign' for another program, None for neither."""
    word = token.strip("[]()\"'$;,")
    if word in FOREIGN_COMMANDS or os.path.basename(word) in FOREIGN_COMMANDS:
        return "foreign"
    base = os.path.basename(word)
    if base in ("tandem-bench", "tandem-model", "tandem-run", "p2p-floor") + tuple(f"tandem-{a}" for a in APPS):
        return base
    for key in tools:
        if "/" in key and (word == key or word.endswith("/" + key)):
            return key
        if key.startswith(("sim/studies/", "tools/")) and key.endswith(".py") and base == os.path.basename(key):
            return key
    return None


def options_of_segment(segment, tools, default=None):
    """[(tool or None or 'foreign', option)] of one code span or code line; default: the tool of the
    section (a heading that names one), for options with no tool before them."""
    found, tool, depth, app, previous = [], default, 0, None, ""
    for token in segment.replace("\\|", "|").split():
        if previous == "--app" and tool == "sim/run":
            app = token
        previous = token
        if token == "#" or token.startswith("#"):
            tool = default  # a comment: what follows is prose
            continue
        if token in ("&&", "||", ";") or (token == "|" and depth == 0):
            tool = default
            continue
        if token == "--":
            tool = (f"tandem-{app}" if app else "tandem-bench") if tool == "sim/run" else tool
            continue
        depth += token.count("[") - token.count("]")
        named = tool_of(token, tools)
        if named:
            tool = named
            continue
        m = OPTION.search(token.lstrip("[(\"'"))
        if m and token.lstrip("[(\"'").startswith("--"):
            found.append((tool, m.group(0)))
    return found


def section_tool(prose, number, tools):
    """The tool the heading above line `number` names (as in "## tandem-bench"), else None."""
    tool = None
    for n, line in prose:
        if n > number:
            break
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            named = [tool_of(word, tools) for word in m.group(1).replace("`", " ").split()]
            named = [t for t in named if t and t != "foreign"]
            tool = named[0] if named else None
    return tool


# ---- (c) links ----

def slug(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    prose, _ = split_markdown(read(path))
    seen, out = {}, set()
    for _, line in prose:
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


LINK = re.compile(r"\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_docs.py <repository top>")
    top = os.path.abspath(sys.argv[1])
    problems = []
    docs = [d for d in doc_files(top) if os.path.exists(d)]
    if not os.path.exists(os.path.join(top, "README.md")):
        problems.append("README.md is missing")

    # (a)
    read_by_code = variables_read(top, problems)
    options_cmake = cmake_options(top)
    in_tables, in_readme_tables, mentioned = {}, set(), {}
    for path in docs:
        rel = os.path.relpath(path, top)
        prose, code = split_markdown(read(path))
        for number, line in prose + code:
            for name in variables_named(line):
                mentioned.setdefault(name, f"{rel}:{number}")
        for number, line in prose:
            if line.lstrip().startswith("|"):
                for name in variables_named(line):
                    in_tables.setdefault(name, f"{rel}:{number}")
                    if rel == "README.md":
                        in_readme_tables.add(name)
    for name, where in sorted(in_tables.items()):
        if name not in read_by_code:
            problems.append(f"{where}: the table names {name}, which the code does not read")
    for name, where in sorted(mentioned.items()):
        if name not in read_by_code and name not in in_tables and name not in options_cmake:
            problems.append(f"{where}: {name} is neither read by the code nor a CMake option")
    user_facing = {n: w for n, w in read_by_code.items() if n not in IGNORED_VARIABLES}
    for name, where in sorted(user_facing.items()):
        if name not in in_tables:
            problems.append(f"{where} reads {name}, which no table of README.md or docs/*.md documents "
                            "(or list it in check_docs.py's IGNORED_VARIABLES if users never set it)")
        elif name not in in_readme_tables:
            problems.append(f"{where} reads {name}, which README.md's table of variables lacks")
    for name in sorted(IGNORED_VARIABLES - set(read_by_code)):
        problems.append(f"check_docs.py ignores {name}, which the code no longer reads: drop it from the list")

    # (b)
    tools = tool_sources(top)
    known = {key: options_in(kind, files) for key, (kind, files) in tools.items()}
    everywhere = set().union(*known.values()) if known else set()
    checked = 0
    for path in docs:
        rel = os.path.relpath(path, top)
        prose, code = split_markdown(read(path))
        segments = [(n, s) for n, line in prose for _, s in code_spans(line)] + code
        for number, segment in segments:
            for tool, option in options_of_segment(segment, tools, section_tool(prose, number, tools)):
                # tandem-run hands the options it does not know to mpirun
                if tool == "foreign" or (tool in (None, "tandem-run") and option in FOREIGN_OPTIONS):
                    continue
                checked += 1
                if tool is None:
                    if option not in everywhere:
                        problems.append(f"{rel}:{number}: {option} is an option of no tool (tools/, sim/, scripts/)")
                elif option not in known[tool]:
                    files = ", ".join(os.path.relpath(f, top) for f in tools[tool][1])
                    problems.append(f"{rel}:{number}: {tool} has no option {option} ({files})")

    # (c)
    links, linked = 0, docs + [p for p in [os.path.join(top, "bench", "README.md")] if os.path.exists(p)]
    for path in linked:
        rel = os.path.relpath(path, top)
        prose, _ = split_markdown(read(path))
        for number, line in prose:
            for target in LINK.findall(without_code_spans(line)):
                if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                links += 1
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if os.path.commonpath([dest, top]) != top:
                    problems.append(f"{rel}:{number}: link {target} leaves the repository")
                elif not os.path.exists(dest):
                    problems.append(f"{rel}:{number}: link {target}: {os.path.relpath(dest, top)} does not exist")
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    problems.append(f"{rel}:{number}: link {target}: no heading #{anchor} in {os.path.relpath(dest, top)}")

    if problems:
        for p in problems:
            print("check_docs:", p)
        print(f"check_docs: {len(problems)} problems")
        return 1
    print(f"check_docs: OK: {len(user_facing)} user-facing variables documented ({len(IGNORED_VARIABLES)} internal "
          f"ignored), {checked} options checked against {len(tools)} tools, {links} links in {len(linked)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
