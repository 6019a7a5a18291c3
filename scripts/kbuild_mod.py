# SPDX-License-Identifier: GPL-2.0
"""The module a source file belongs to, read from its directory's Kbuild or
Makefile as kbuild reads them (Documentation/migration.md: the unit of an
audit and of a conversion is the module).

  obj-m += x.o / obj-$(CONFIG_X) += x.o      module x: x-y, x-objs, x-$(...)
                                             lists, or x.c alone
  x-y := a.o sub/b.o / x-$(CONFIG_Y) += c.o  every configuration's objects
  obj-$(CONFIG_X) += sub/                    a subdirectory, read in turn

Every configuration counts: a file listed under any CONFIG_ option belongs to
the module. Where no Kbuild or Makefile lists the file, the unit is its whole
directory, and the result says so.
"""
import os
import re
import sys

MAX_UP = 3      # a composite object may list files of subdirectories
OBJ_CONFIG = {}  # (Makefile, object) -> what follows obj-: m, y, $(CONFIG_FOO)


class Module:
    """name; makefile (None: the directory read whole); files (.c and the
    .h they include with quotes, found); missing: objects with no .c."""

    def __init__(self, name, makefile, files, missing=()):
        self.name, self.makefile = name, makefile
        self.files, self.missing = list(files), list(missing)

    def describe(self, rel=None):
        rel = rel or _rel
        nc = sum(f.endswith(".c") for f in self.files)
        nh = len(self.files) - nc
        if self.makefile is None:
            s = "directory %s read whole (no Kbuild/Makefile lists it): %d .c, %d .h" % (
                rel(self.name), nc, nh)
        else:
            s = "module %s (%s): %d .c, %d .h" % (self.name, rel(self.makefile), nc, nh)
        if self.missing:
            s += "; not read: %s" % ", ".join(self.missing)
        return s


def _rel(f):
    r = os.path.relpath(f)
    return os.path.abspath(f) if r.startswith("../..") else r


def _lines(path):
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return []
    text = re.sub(r"\\\n", " ", text)
    return [re.sub(r"(?<!\\)#.*", "", ln) for ln in text.split("\n")]


def read_makefile(d):
    """(path, {composite name: [objects]}, [objects of obj-*]) of directory d,
    or None without a Kbuild or Makefile."""
    for n in ("Kbuild", "Makefile"):
        mk = os.path.join(d, n)
        if os.path.isfile(mk):
            break
    else:
        return None
    var, comp, objs = {}, {}, []
    for ln in _lines(mk):
        m = re.match(r"\s*([\w.$()/, -]+?)\s*(\+=|:=|\?=|=)\s*(.*)$", ln)
        if not m or m.group(1).startswith(("ifeq", "ifneq", "ifdef", "ifndef")):
            continue
        lhs, rhs = m.group(1).strip(), m.group(3)
        var.setdefault(lhs, []).extend(rhs.split())
        # Expand $(var) of this Makefile (one level is what drivers use).
        words = []
        for w in rhs.split():
            v = re.fullmatch(r"\$\(([\w-]+)\)", w)
            words.extend(var.get(v.group(1), []) if v else [w])
        words = [w for w in words if w.endswith((".o", "/")) and "$" not in w]
        if not words:
            continue
        if lhs.startswith("obj-") or lhs == "obj":
            objs.extend(words)
            for w in words:
                OBJ_CONFIG.setdefault((mk, w), lhs[4:])
            continue
        name = None
        for suf in ("-objs", "-y", "-m"):
            if lhs.endswith(suf):
                name = lhs[:-len(suf)]
        if name is None and "-$(" in lhs:
            name = lhs[:lhs.index("-$(")]
        if name and not name.startswith(("lib", "extra", "always", "hostprogs", "targets",
                                         "subdir", "ccflags", "asflags", "ldflags", "userprogs")):
            comp.setdefault(name, []).extend(w for w in words if w.endswith(".o"))
    return mk, comp, objs


def _expand(comp, name, seen=()):
    out = []
    for o in comp.get(name, []):
        b = o[:-2]
        if b in comp and b not in seen and b != name:
            out.extend(_expand(comp, b, seen + (name,)))
        else:
            out.append(o)
    return out


def _quoted_includes(path):
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return []
    out = []
    for inc in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, re.M):
        p = os.path.normpath(os.path.join(os.path.dirname(path), inc))
        if os.path.isfile(p):
            out.append(p)
    return out


def with_headers(cfiles):
    """cfiles and the headers they include with quotes, transitively."""
    out, todo = [], list(cfiles)
    while todo:
        f = todo.pop(0)
        if f in out:
            continue
        out.append(f)
        todo.extend(h for h in _quoted_includes(f) if h not in out)
    return out


def modules_of_dir(d, recurse=True):
    """Every module built from directory d (its subdirectories' too, when
    recurse), and the directory itself when no Makefile can be read."""
    d = os.path.normpath(d)
    mf = read_makefile(d)
    if mf is None:
        return [whole_dir(d)]
    mk, comp, objs = mf
    mods, subdirs = [], []
    for o in objs:
        if o.endswith("/"):
            subdirs.append(os.path.normpath(os.path.join(d, o)))
            continue
        mods.append(_module(d, mk, comp, o[:-2]))
    if recurse:
        for n in sorted(os.listdir(d)):
            s = os.path.join(d, n)
            if os.path.isdir(s) and s not in subdirs and read_makefile(s):
                subdirs.append(s)
        for s in subdirs:
            if os.path.isdir(s):
                mods.extend(modules_of_dir(s))
    # Files of d no object list names: read with every module of d (a
    # fragment #included by a listed file, or one we cannot place).
    listed = set(f for m in mods for f in m.files)
    loose = [os.path.join(d, n) for n in sorted(os.listdir(d))
             if n.endswith(".c") and os.path.join(d, n) not in listed]
    if loose:
        mods.append(Module("%s (files no object list names)" % d, mk, with_headers(loose)))
    return [m for m in mods if m.files]


def _module(d, mk, comp, name):
    objs = _expand(comp, name) if name in comp else [name + ".o"]
    cfiles, missing = [], []
    for o in objs:
        c = os.path.normpath(os.path.join(d, o[:-2] + ".c"))
        if os.path.isfile(c):
            cfiles.append(c)
        elif not os.path.isfile(os.path.join(d, o[:-2] + ".S")):
            missing.append(os.path.relpath(c, d))
    m = Module(os.path.basename(name), mk, with_headers(cfiles), missing)
    m.objs, m.dir = objs, d
    return m


def whole_dir(d):
    files = [os.path.join(d, n) for n in sorted(os.listdir(d)) if n.endswith((".c", ".h"))]
    return Module(d, None, with_headers(files))


def modules_of_file(f):
    """The modules f belongs to: those listing its object (a .c) or
    including it (a .h), looked up in its directory's Makefile and up to
    MAX_UP parents'; else its directory, whole."""
    f = os.path.normpath(f)
    d = os.path.dirname(f) or "."
    for up in range(MAX_UP + 1):
        mf = read_makefile(d)
        if mf is not None:
            mk, comp, objs = mf
            mods = []
            for o in objs:
                if not o.endswith("/"):
                    m = _module(d, mk, comp, o[:-2])
                    if f in m.files:
                        mods.append(m)
            if mods:
                return mods
        if up == MAX_UP:
            break
        parent = os.path.dirname(d)
        if not parent or parent == d:
            break
        d = parent
    return [whole_dir(os.path.dirname(f) or ".")]


def modules(paths):
    """The modules of every path given (a file or a directory), each once."""
    out, seen = [], set()
    for p in paths:
        for m in (modules_of_dir(p) if os.path.isdir(p) else modules_of_file(p)):
            key = (m.name, m.makefile, tuple(m.files))
            if key not in seen:
                seen.add(key)
                out.append(m)
    return out


def main(argv):
    """kbuild_mod.py files PATH...: the source files of the modules of each
    PATH, one a line; what each module is, on stderr."""
    if len(argv) < 3 or argv[1] != "files":
        sys.stderr.write("usage: kbuild_mod.py files FILE|DIR...\n")
        return 2
    out = []
    for m in modules(argv[2:]):
        sys.stderr.write("si-migrate: %s\n" % m.describe())
        out.extend(f for f in m.files if f not in out)
    sys.stdout.write("".join(f + "\n" for f in out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
