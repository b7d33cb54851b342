#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the kernel's layer rules (tools/layers; `make check`).

Each kernel folder's README.md says which folders it may use, on one line:

    May include: lib, arch, log

(`any` allows every folder, `nothing` none).  This tool reads those lines, then every
`#include` of every source and header file, and every call of a function
that another folder alone defines, and prints each use of a folder the rule
does not allow (an upward edge) as FILE:LINE: the rule it breaks.  It also
prints the cycles left between folders, and counts the arrows that point
upward in the intended order of the layers (ORDER, bottom first), whether
a rule allows them or not.  The exit status is 1 when a rule is
broken or a folder has no rule, else 0.

A header belongs to the folder it lives in: kernel/include/NAME/ is folder
NAME's (`#include <sync/trigger.h>`), kernel/arch/x86/include/asm/ the arch's,
kernel/lib/ the library's.  A folder may always use itself.

One more rule holds for every folder but the arch and the tests: a source
file (.c, .S) of generic code includes no arch header (<asm/...>).  Generic
code reaches the arch through the generic headers in kernel/include/, which
wrap its hooks with static inline functions and so may include <asm/...>
(docs/CONVENTIONS.md, "Rules of the layering").
"""

import argparse
import os
import re
import sys

# folder -> (where its files are, relative to the tree's root; its README)
FOLDERS = {
    "lib": (("kernel/lib",), "kernel/lib/README.md"),
    "arch": (("kernel/arch/x86",), "kernel/arch/x86/README.md"),
    "cpu": (("kernel/cpu",), "kernel/cpu/README.md"),
    "log": (("kernel/log",), "kernel/log/README.md"),
    "console": (("kernel/console",), "kernel/console/README.md"),
    "sync": (("kernel/sync",), "kernel/sync/README.md"),
    "smp": (("kernel/smp",), "kernel/smp/README.md"),
    "time": (("kernel/time",), "kernel/time/README.md"),
    "mm": (("kernel/mm",), "kernel/mm/README.md"),
    "boot": (("kernel/boot",), "kernel/boot/README.md"),
    "harness": (("kernel/harness",), "kernel/harness/README.md"),
    "main": (("kernel/main.c",), "kernel/README.md"),
    "tests": (("tests",), "tests/README.md"),
}
# The intended order, bottom first (docs/CONVENTIONS.md): an arrow to a later
# folder points upward.
ORDER = ("lib", "arch", "cpu", "log", "boot", "time", "sync", "mm", "console", "smp", "harness", "main",
         "tests")
# Folders under kernel/include/ named after a folder above hold its headers.
INCLUDE_ROOT = "kernel/include"
ARCH_INCLUDE = "kernel/arch/x86/include"
# Where the compiler looks for <...> includes (the Makefile's INCLUDES), in order.
INCLUDE_PATHS = (INCLUDE_ROOT, "kernel", ARCH_INCLUDE)
# Files that are not the kernel's: the host runner and fuzz targets, the model.
SKIPPED = ("tests/host/", "tests/fuzz/", "tests/model/", "tests/gdb/")
SOURCE_SUFFIXES = (".c", ".h", ".S")
# Folders whose source files may include arch headers: the arch, and the tests.
ARCH_USERS = ("arch", "tests")
ASM_RULE = ("a generic source file includes an arch header; reach it through a generic "
            "header in kernel/include/ that wraps it (docs/CONVENTIONS.md: Rules of the layering)")

RULE = re.compile(r"^May include:\s*(.*)$", re.MULTILINE)
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
# A function definition in Linux style: at column 0, not static, its name
# followed by '(' and its body's '{' at column 0 on a following line.
DEFINITION = re.compile(r"^(?!static\b|typedef\b|extern\b|#)[A-Za-z_][^;=(]*?\b([A-Za-z_]\w*)\(")
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"' + r"|'(?:\\.|[^'\\\n])*'")


def folder_of(path):
    """The folder (a key of FOLDERS) that @path (relative to the root) belongs to, or None."""
    if path.startswith(INCLUDE_ROOT + "/"):
        name = path[len(INCLUDE_ROOT) + 1:].split("/", 1)[0]
        return name if name in FOLDERS else None
    for name, (places, _) in FOLDERS.items():
        for place in places:
            if path == place or path.startswith(place + "/"):
                return name
    return None


def read_rules(root):
    """Return ({folder: set of folders it may use, or None for any}, [problems])."""
    rules, problems = {}, []
    for name, (_, readme) in FOLDERS.items():
        try:
            with open(os.path.join(root, readme), encoding="utf-8") as file:
                text = file.read()
        except OSError:
            problems.append(f"{readme}: missing: folder {name} has no rule")
            continue
        found = RULE.findall(text)
        if len(found) != 1:
            problems.append(f"{readme}: needs exactly one 'May include:' line, has {len(found)}")
            continue
        words = [w.strip(" .`") for w in found[0].split(",") if w.strip(" .`")]
        if words == ["any"]:
            rules[name] = None
            continue
        if words == ["nothing"]:
            rules[name] = set()
            continue
        unknown = [w for w in words if w not in FOLDERS]
        if unknown:
            problems.append(f"{readme}: 'May include:' names unknown folders: {', '.join(unknown)}")
        rules[name] = set(words) & set(FOLDERS)
    return rules, problems


def source_files(root):
    """Every kernel source and header file (relative paths), sorted."""
    found = []
    for top in ("kernel", "tests"):
        for directory, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                path = os.path.relpath(os.path.join(directory, name), root)
                if name.endswith(SOURCE_SUFFIXES) and not path.startswith(SKIPPED):
                    found.append(path)
    return sorted(found)


def strip_code(text):
    """@text without comments and string literals, line breaks kept."""
    text = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return STRING.sub('""', text)


def resolve(root, including, target, quoted):
    """The relative path an include of @target from @including names, or None."""
    candidates = [os.path.join(os.path.dirname(including), target)] if quoted else []
    candidates += [os.path.join(place, target) for place in INCLUDE_PATHS]
    for candidate in candidates:
        candidate = os.path.normpath(candidate)
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def definitions(files, texts):
    """{function name: set of folders defining it} over the .c files."""
    defined = {}
    for path in files:
        if not path.endswith(".c"):
            continue
        lines = texts[path].split("\n")
        for number, line in enumerate(lines):
            match = DEFINITION.match(line)
            if not match or line.rstrip().endswith(";"):
                continue
            rest = lines[number + 1:number + 4]
            if any(following.startswith("{") for following in rest):
                defined.setdefault(match.group(1), set()).add(folder_of(path))
    return defined


def edges_of(root):
    """Every use of one folder by another: a list of (file, line, from, to, what)."""
    files = source_files(root)
    texts = {}
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as file:
            texts[path] = strip_code(file.read())
    defined = definitions(files, texts)
    edges = []
    for path in files:
        source = folder_of(path)
        if source is None:
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as file:
            raw_lines = file.read().split("\n")
        for number, line in enumerate(raw_lines, 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = resolve(root, path, match.group(1), '"' in line.split("include", 1)[1][:3])
            owner = folder_of(target) if target else None
            if owner and owner != source:
                edges.append((path, number, source, owner, f"#include <{match.group(1)}>"))
        for number, line in enumerate(texts[path].split("\n"), 1):
            if line.lstrip().startswith("#"):
                continue
            for name in CALL.findall(line):
                owners = defined.get(name, set())
                if len(owners) == 1:
                    owner = next(iter(owners))
                    if owner and owner != source:
                        edges.append((path, number, source, owner, f"calls {name}()"))
    return edges


def asm_includes(root):
    """Every generic source file's include of an arch header: a list of "FILE:LINE: ..." lines."""
    found = []
    for path in source_files(root):
        source = folder_of(path)
        if source is None or source in ARCH_USERS or path.endswith(".h"):
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as file:
            raw = file.read()
        # Comments out, line breaks kept: an include inside a comment is none.
        code_lines = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), raw).split("\n")
        for number, line in enumerate(raw.split("\n"), 1):
            match = INCLUDE.match(line)
            if not match or not INCLUDE.match(code_lines[number - 1]):
                continue
            target = resolve(root, path, match.group(1), '"' in line.split("include", 1)[1][:3])
            if (target or match.group(1)).startswith((ARCH_INCLUDE + "/", "asm/")):
                found.append(f"{path}:{number}: #include <{match.group(1)}>: {ASM_RULE}")
    return found


def cycles(graph):
    """The strongly connected components of more than one node of @graph, sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def check(root, out=sys.stdout, verbose=False):
    """Print the broken rules and the cycles of the tree at @root; return the exit status."""
    rules, problems = read_rules(root)
    edges = edges_of(root)
    graph, upward, broken, uses = {}, set(), [], {}
    for path, number, source, owner, what in edges:
        graph.setdefault(source, set()).add(owner)
        uses.setdefault((source, owner), []).append(f"{path}:{number} {what}")
        allowed = rules.get(source)
        if source in rules and allowed is not None and owner not in allowed:
            upward.add((source, owner))
            readme = FOLDERS[source][1]
            broken.append(f"{path}:{number}: {what} uses {owner}/, which the rule of "
                          f"{source}/ does not allow ({readme}: May include: "
                          f"{', '.join(sorted(allowed)) or 'nothing'})")
    arch_seams = asm_includes(root)
    for line in problems + broken + arch_seams:
        print(line, file=out)
    arrows = sum(len(targets) for targets in graph.values())
    rising = sorted((source, owner) for source, targets in graph.items() for owner in targets
                    if ORDER.index(owner) > ORDER.index(source))
    loops = cycles(graph)
    generic = {source: {owner for owner in targets if owner != "arch"}
               for source, targets in graph.items() if source != "arch"}
    generic_loops = cycles(generic)
    for loop in loops:
        print(f"layers: cycle between folders: {' '.join(loop)}", file=out)
    for loop in generic_loops:
        print(f"layers: cycle without the arch: {' '.join(loop)}", file=out)
    for source, owner in rising:
        first = uses[(source, owner)]
        print(f"layers: upward in the order: {source} -> {owner} ({len(first)} uses, first "
              f"{first[0]})", file=out)
    if verbose:
        for source in sorted(graph):
            print(f"layers: {source} -> {' '.join(sorted(graph[source]))}", file=out)
    print(f"layers: {len(edges)} uses between folders, {arrows} arrows, {len(rising)} upward "
          f"in the order, {len(upward)} against the rules ({len(broken)} uses); cycles: "
          f"{len(loops)}, {len(generic_loops)} without the arch"
          + (f"; {len(problems)} rule problems" if problems else "")
          + (f"; {len(arch_seams)} arch headers in generic source files" if arch_seams else ""),
          file=out)
    return 1 if problems or broken or arch_seams else 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="layers", description=__doc__.split("\n\n")[0],
        epilog="Each folder's rule is the 'May include:' line of its README.md.")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))), help="the tree to check (default: this one)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="also print every folder's arrows")
    args = parser.parse_args(argv)
    return check(args.root, verbose=args.verbose)
