#!/usr/bin/env python3
"""Assembles gpukit.h and gpukit_llm.h from the source tree under src/.

Each header has a manifest (src/gpukit.manifest, src/gpukit_llm.manifest): the
files joined, in order, one a line, with the >>anchor and description that the
generated table of contents lists. The first file of a manifest is the
documentation comment; its line "@TOC@" becomes the table of contents. The
headers are generated and committed: edit src/, then run this (`make headers`).

  python3 tools/amalgamate.py                   write gpukit.h and gpukit_llm.h
  python3 tools/amalgamate.py --check           exit 1 if a committed header differs
  python3 tools/amalgamate.py --line-markers    emit #line markers pointing into src/
                                                (for debugging; never commit these)
  python3 tools/amalgamate.py --out DIR         write the headers into DIR instead
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
HEADERS = [("gpukit.h", "gpukit.manifest"), ("gpukit_llm.h", "gpukit_llm.manifest")]


class ManifestError(Exception):
    pass


def read_manifest(name):
    """[(path, anchor or None, description)] from src/<name>."""
    entries = []
    with open(os.path.join(SRC, name), encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            line = raw.split("#", 1)[0].rstrip() if raw.lstrip().startswith("#") else raw.rstrip()
            if not line.strip():
                continue
            parts = line.split(None, 2)
            path = parts[0]
            anchor = desc = None
            if len(parts) > 1:
                if not parts[1].startswith(">>"):
                    raise ManifestError("src/%s:%d: second column must be a >>anchor, got %r" % (name, n, parts[1]))
                anchor = parts[1][2:]
                desc = parts[2] if len(parts) > 2 else ""
            if not os.path.isfile(os.path.join(SRC, path)):
                raise ManifestError("src/%s:%d: no file src/%s" % (name, n, path))
            entries.append((path, anchor, desc))
    return entries


def toc(entries, indent="      "):
    width = max(len(a) for _, a, _ in entries if a) + 2
    pwidth = max(len(p) for p, a, _ in entries if a) + 1
    api = [e for e in entries if e[1] and e[0].endswith(".h")]
    impl = [e for e in entries if e[1] and not e[0].endswith(".h")]
    out = ["   TABLE OF CONTENTS (grep for the >>anchors; the source of each part is under src/)"]
    for title, group in (("API", api), ("IMPLEMENTATION", impl)):
        out.append("   " + title)
        for path, anchor, desc in group:
            out.append(("%s>>%-*s %-*s %s" % (indent, width, anchor, pwidth, path, desc)).rstrip())
    return "\n".join(out)


def assemble(manifest, line_markers=False):
    entries = read_manifest(manifest)
    out = []
    for i, (path, anchor, desc) in enumerate(entries):
        with open(os.path.join(SRC, path), encoding="utf-8") as fh:
            text = fh.read()
        if not text.endswith("\n"):
            raise ManifestError("src/%s: does not end with a newline" % path)
        if anchor and (">>" + anchor) not in text:
            raise ManifestError("src/%s: the manifest's anchor >>%s is not in the file" % (path, anchor))
        if i == 0:
            if "@TOC@\n" not in text:
                raise ManifestError("src/%s: the documentation has no @TOC@ line" % path)
            text = text.replace("@TOC@", toc(entries))
        elif line_markers and not path.endswith(".txt"):
            out.append('#line 1 "src/%s"\n' % path)
        out.append(text)
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a committed header differs from src/")
    ap.add_argument("--line-markers", action="store_true", help="emit #line markers into src/")
    ap.add_argument("--out", default=ROOT, help="folder to write the headers to")
    args = ap.parse_args()
    stale = []
    for header, manifest in HEADERS:
        try:
            text = assemble(manifest, args.line_markers)
        except (ManifestError, OSError) as e:
            print("amalgamate: %s" % e, file=sys.stderr)
            return 2
        dest = os.path.join(args.out, header)
        if args.check:
            try:
                with open(dest, encoding="utf-8") as fh:
                    cur = fh.read()
            except OSError:
                cur = None
            if cur != text:
                stale.append(header)
            continue
        with open(dest, "w", encoding="utf-8") as fh:
            fh.write(text)
        print("wrote %s (%d lines) from src/%s" % (header, text.count("\n"), manifest))
    if args.check:
        if stale:
            print("%s differ%s from src/: run python3 tools/amalgamate.py (make headers) and commit"
                  % (" and ".join(stale), "s" if len(stale) == 1 else ""))
            return 1
        print("gpukit.h and gpukit_llm.h are up to date with src/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
