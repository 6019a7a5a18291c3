#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The facts of C files, as Coccinelle's parser reads them, for the
migration kit (si-migrate-scan.py; Documentation/migration.md, "How the kit
reads C"): struct definitions with their members and member types,
function definitions with their parameters, variable declarations,
every call with its callee, its arguments' texts and its line, and the
names given to a field (ops-table initializers, assignments).

Coccinelle (spatch, which the kit already needs to convert) parses the
unpreprocessed text and every #ifdef branch, with no kernel configuration:
a member declared after an #endif or inside an #ifdef block is a member
like any other. It is also the parser that performs the conversion
(scripts/coccinelle/si_timer_convert.cocci), so what the facts call a
member is exactly what the rewrite treats as one. The rules are in
scripts/coccinelle/c_facts.cocci; spatch prints one JSON line per fact.

Facts are cached by the content of each file (and of the rules), in
$SI_C_FACTS_CACHE, else $XDG_CACHE_HOME/si-timer/c_facts, else
~/.cache/si-timer/c_facts: the converter scans the same files several
times (a plan per round, the check after it, the list of what is left).
SI_C_FACTS_CACHE=off disables the cache.

  c_facts.py FILE...    the facts, one JSON line each (for a look)
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = os.path.join(HERE, "coccinelle", "c_facts.cocci")
# Kernel macros Coccinelle must read as what they are (scoped_guard()):
# the same file the converter passes, so both parse the same functions.
MACROS = os.path.join(HERE, "coccinelle", "si_timer_macros.h")
MARK = "@c_facts "
# One fact format: bump when the rules' output changes shape.
FORMAT = "2"


class Function:
    """A function definition: where (its name's line and column, the
    first and last line of the whole definition), its return type's text,
    its parameters [(name, type)] in order, and its calls [Call] in order
    of position."""

    def __init__(self, path, name, rtype, line, start, end, col=0):
        self.path, self.name, self.type = path, name, rtype
        self.line, self.start, self.end, self.col = line, start, end, col
        self.params, self.calls = [], []


class Call:
    """callee(args): the caller's name (None outside a function), the
    arguments' texts as Coccinelle prints them (tokens joined by blanks:
    compare with norm()), the line (1-based) and column (0-based)."""

    def __init__(self, path, caller, callee, args, line, col):
        self.path, self.caller, self.callee, self.args = path, caller, callee, args
        self.line, self.col = line, col


class Decl:
    """A variable declared name of type (a local when function is set)."""

    def __init__(self, path, name, vtype, line, col, function):
        self.path, self.name, self.type = path, name, vtype
        self.line, self.col, self.function = line, col, function


class Field:
    """A name given to a field: .field = value in an initializer of struct
    (None one level down, or in an assignment, whose left side's text is
    lhs), or lhs.field = value / lhs->field = value; &value too."""

    def __init__(self, path, struct, field, value, lhs, line, col):
        self.path, self.struct, self.field, self.value = path, struct, field, value
        self.lhs, self.line, self.col = lhs, line, col


class Facts:
    """structs: struct name -> {member: its type's text}; members:
    [(path, line, col, struct, member, type)]; functions: name ->
    [Function]; calls: [Call]; decls: [Decl] (globals and locals);
    fields: [Field]."""

    def __init__(self):
        self.structs, self.members, self.functions = {}, [], {}
        self.calls, self.decls, self.fields = [], [], []
        self.paths = []
        self._by_path = None

    def function_at(self, path, line):
        """The function whose definition holds that line of path."""
        if self._by_path is None:
            self._by_path = {}
            for fs in self.functions.values():
                for f in fs:
                    self._by_path.setdefault(f.path, []).append(f)
        for f in self._by_path.get(path, ()):
            if f.start <= line <= f.end:
                return f
        return None

    def member_at(self, path, line, col):
        """(struct, member, type) of the member declared at that position."""
        for p, ln, c, s, m, t in self.members:
            if p == path and ln == line and c == col:
                return s, m, t
        return None


def norm(text):
    return re.sub(r"\s+", "", text)


def type_struct(ctype):
    """The struct a type names: "const struct foo *" -> "foo", "struct bar
    [ 4 ]" -> "bar", "struct baz { ... }" (a member defined in place) ->
    "baz"; None for any other type."""
    m = re.match(r"\s*(?:(?:const|volatile)\s+)*struct\s+(\w+)", ctype)
    return m.group(1) if m else None


def type_is_pointer(ctype):
    """The type is a pointer (to a struct, or a function pointer), not the
    object itself or an array of it."""
    t = re.sub(r"\{.*\}", "", ctype, flags=re.S)
    return "*" in t


def type_is_object(ctype, names):
    """The type is struct <one of names> itself or an array of it."""
    return type_struct(ctype) in names and not type_is_pointer(ctype)


def _cache_dir():
    d = os.environ.get("SI_C_FACTS_CACHE")
    if d == "off":
        return None
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "si-timer", "c_facts")
    try:
        os.makedirs(d, exist_ok=True)
    except OSError:
        return None
    return d


def blank_attributes(text):
    """__attribute__((...)) as blanks (newlines kept, so positions stay).
    Coccinelle 1.1 stops at one after a declarator in some places (struct
    usb_hcd's last member, "hcd_priv[] __attribute__ ((aligned(...)))", in
    include/linux/usb/hcd.h) and then reads none of that struct. Only for
    kernel headers the kit reads and never converts: in a driver's files
    the scan must see what the converter's parse sees."""
    out, i = [], 0
    for m in re.finditer(r"\b__attribute__\s*\(", text):
        if m.start() < i:
            continue
        depth, j = 0, m.end() - 1
        while j < len(text):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
            if depth == 0:
                break
        out.append(text[i:m.start()])
        out.append(re.sub(r"[^\n]", " ", text[m.start():j]))
        i = j
    out.append(text[i:])
    return "".join(out)


def _rules_key(blank=False):
    h = hashlib.sha256((FORMAT + ("-blank" if blank else "")).encode())
    for f in (RULES, MACROS):
        with open(f, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:16]


def _spatch(paths, blank=False):
    """Run the rules on paths (one spatch): {path: [fact]}; with blank,
    on copies whose attributes are blanked (blank_attributes())."""
    if not shutil.which("spatch"):
        raise RuntimeError("spatch not found (apt-get install coccinelle): the kit reads C with "
                           "Coccinelle's parser")
    out = {p: [] for p in paths}
    # Coccinelle names each file as it was given; absolute names map back.
    absmap = {os.path.abspath(p): p for p in paths}
    with tempfile.TemporaryDirectory() as tmp:
        if blank:
            absmap = {}
            for i, p in enumerate(paths):
                os.makedirs(os.path.join(tmp, str(i)))
                copy = os.path.join(tmp, str(i), os.path.basename(p))
                with open(p, errors="replace") as fh, open(copy, "w") as cfh:
                    cfh.write(blank_attributes(fh.read()))
                absmap[copy] = p
        # Each file on its own: a file spatch cannot read does not cost the
        # others their facts. spatch reads the list of files from a file.
        lst = os.path.join(tmp, "files")
        with open(lst, "w") as fh:
            # (a blank line between groups)
            fh.write("\n\n".join(absmap) + "\n")
        r = subprocess.run(["spatch", "--very-quiet", "--sp-file", RULES, "--macro-file", MACROS,
                            "--no-includes", "--include-headers", "--file-groups", lst],
                           capture_output=True, text=True, cwd=tmp)
    if r.returncode:
        raise RuntimeError("spatch failed on the rules %s: %s" % (RULES, r.stderr.strip()[-2000:]))
    for line in r.stdout.splitlines():
        if not line.startswith(MARK):
            continue
        f = json.loads(line[len(MARK):])
        p = absmap.get(os.path.abspath(f["file"]))
        if p is not None:
            out[p].append(f)
    return out


def raw_facts(paths, blank=False):
    """{path: [fact]}: from the cache where a file's content was seen
    before, the rest from one spatch run."""
    cache, key = _cache_dir(), _rules_key(blank)
    out, todo, names = {}, [], {}
    for p in paths:
        with open(p, "rb") as fh:
            names[p] = hashlib.sha256(fh.read()).hexdigest() + "-" + key + ".json"
        if cache:
            try:
                with open(os.path.join(cache, names[p])) as fh:
                    out[p] = json.load(fh)
                continue
            except (OSError, ValueError):
                pass
        todo.append(p)
    if todo:
        got = _spatch(todo, blank)
        for p in todo:
            out[p] = got[p]
            if cache:
                # Written whole or not at all: another scan may read it.
                tmp = os.path.join(cache, names[p] + ".%d" % os.getpid())
                try:
                    with open(tmp, "w") as fh:
                        json.dump(got[p], fh)
                    os.replace(tmp, os.path.join(cache, names[p]))
                except OSError:
                    pass
    return out


def parse(paths, blank=False):
    """The Facts of the files (blank: of their text without attributes,
    for kernel headers only; see blank_attributes())."""
    facts = Facts()
    facts.paths = list(paths)
    raw = raw_facts(facts.paths, blank)
    params = []
    for p in facts.paths:
        for f in raw[p]:
            k = f["kind"]
            if k == "member":
                facts.members.append((p, f["line"], f["col"], f["struct"], f["name"], f["type"]))
            elif k == "function":
                facts.functions.setdefault(f["name"], []).append(
                    Function(p, f["name"], f["type"], f["line"], f["start"], f["end"], f["col"]))
            elif k == "param":
                params.append((p, f))
            elif k == "decl":
                facts.decls.append(Decl(p, f["name"], f["type"], f["line"], f["col"], None))
            elif k == "field":
                facts.fields.append(Field(p, f["struct"], f["field"], f["value"], f["lhs"],
                                          f["line"], f["col"]))
            elif k == "call":
                facts.calls.append(Call(p, None, f["callee"], f["args"], f["line"], f["col"]))
    for p, ln, c, s, m, t in sorted(facts.members):
        facts.structs.setdefault(s, {}).setdefault(m, t)
    # Coccinelle names the "current element" of a position loosely outside
    # functions: a function is the definition whose lines hold it.
    for f in sorted(params, key=lambda x: (x[0], x[1]["line"], x[1]["col"])):
        fn = facts.function_at(f[0], f[1]["line"])
        if fn and fn.name == f[1]["function"]:
            fn.params.append((f[1]["name"], f[1]["type"]))
    for d in facts.decls:
        fn = facts.function_at(d.path, d.line)
        d.function = fn.name if fn else None
    facts.calls.sort(key=lambda c: (facts.paths.index(c.path), c.line, c.col))
    for c in facts.calls:
        fn = facts.function_at(c.path, c.line)
        if fn:
            c.caller = fn.name
            fn.calls.append(c)
    return facts


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    raw = raw_facts(sys.argv[1:])
    for p in sys.argv[1:]:
        for f in raw[p]:
            f["file"] = p
            print(json.dumps(f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
