#!/usr/bin/env python3
"""gen_cli.py: docs/cli.md -> tools/cli_help.h and share/man/man1/ptxvm.1.

docs/cli.md is the one source of the command-line reference; this script
makes the two things that must say the same: the help text each command
prints (`ptxvm --help`, `ptxvm run --help`, ...: one C string per
`## ptxvm ...` section, in a generated header the build compiles, so the
build needs no Python) and the man page (the whole file, in roff). Both are
committed; `tests/cli/test_help.sh` runs `--check`, which regenerates them
in memory and fails when a committed file differs.

The Markdown is a small subset (docs/cli.md's introduction): `##` sections,
`###` subsections, paragraphs, four-space verbatim blocks and definition
items "- `TERM` — text" continued by two-space indented lines. Anything
else is an error, so the page cannot silently lose text.

    python3 scripts/gen_cli.py            write both files
    python3 scripts/gen_cli.py --check    exit 1 if either is stale
    python3 scripts/gen_cli.py --help-of CMD   print CMD's help text
                                          ("" for ptxvm's own)
"""
import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "docs/cli.md")
HEADER = os.path.join(ROOT, "tools/cli_help.h")
MAN = os.path.join(ROOT, "share/man/man1/ptxvm.1")
WIDTH = 79
TERM_COL = 26          # where an item's text starts in the help
ITEM = re.compile(r"^- (`[^—]*`) — (.*)$")   # TERM: backquoted, perhaps several


def parse(text):
    """-> (title, [(heading, [block])]); a block is ('p', text),
    ('pre', [lines]), ('item', term, text) or ('h3', text)."""
    lines = text.split("\n")
    title = None
    sections = []
    blocks = None
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("# ") and title is None:
            title = ln[2:].strip()
            i += 1
            continue
        if ln.startswith("## "):
            blocks = []
            sections.append((ln[3:].strip(), blocks))
            i += 1
            continue
        if blocks is None or not ln.strip():   # the introduction, or a blank
            i += 1
            continue
        if ln.startswith("### "):
            blocks.append(("h3", ln[4:].strip()))
            i += 1
        elif ln.startswith("    "):
            pre = []
            while i < len(lines) and (lines[i].startswith("    ") or
                                      (not lines[i].strip() and i + 1 < len(lines)
                                       and lines[i + 1].startswith("    "))):
                pre.append(lines[i][4:])
                i += 1
            blocks.append(("pre", pre))
        elif ln.startswith("- "):
            m = ITEM.match(ln)
            if not m:
                sys.exit("docs/cli.md:%d: an item is - `TERM` — text" % (i + 1))
            body = [m.group(2)]
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                body.append(lines[i].strip())
                i += 1
            blocks.append(("item", m.group(1).replace("`", ""), " ".join(body)))
        elif ln[0] in "#|>*`" and not ln.startswith("`"):
            sys.exit("docs/cli.md:%d: not in the subset gen_cli.py reads" % (i + 1))
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "- ", "    ")):
                para.append(lines[i].strip())
                i += 1
            blocks.append(("p", " ".join(para)))
    if not title:
        sys.exit("docs/cli.md: no '# ' title")
    return title, sections


def plain(s):
    return s.replace("`", "")


def help_text(blocks):
    out = []
    prev = None
    for b in blocks:
        if out and not (b[0] == "item" and prev == "item"):   # items run together; blocks apart
            out.append("")
        prev = b[0]
        if b[0] == "pre":
            out.extend(b[1])
        elif b[0] == "p":
            out.extend(textwrap.wrap(plain(b[1]), WIDTH))
        elif b[0] == "h3":
            out.append(plain(b[1]) + ":")
        else:
            term, text = "  " + plain(b[1]), plain(b[2])
            if len(term) > TERM_COL - 2:
                out.append(term)
                first = " " * TERM_COL
            else:
                first = term.ljust(TERM_COL)
            out.extend(textwrap.wrap(text, WIDTH, initial_indent=first,
                                     subsequent_indent=" " * TERM_COL, break_on_hyphens=False))
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def helps(sections):
    """{command: help text} for the `## ptxvm ...` sections ("" = ptxvm)."""
    res = {}
    for head, blocks in sections:
        words = head.split()
        if words[0] == "ptxvm" and len(words) <= 2:
            res[words[1] if len(words) == 2 else ""] = help_text(blocks)
    return res


def c_string(text):
    lines = text.split("\n")[:-1]
    parts = []
    for ln in lines:
        esc = ln.replace("\\", "\\\\").replace('"', '\\"').replace("?", "\\?")
        parts.append('  "%s\\n"' % esc)
    return "\n".join(parts)


def header(sections):
    out = ["/* cli_help.h: GENERATED by scripts/gen_cli.py from docs/cli.md; do not edit.",
           " * The help text of each command (`ptxvm COMMAND --help`; \"\" is ptxvm's",
           " * own), in the order of docs/cli.md. tests/cli/test_help.sh checks that",
           " * this file is current. */",
           "#ifndef PTXVM_CLI_HELP_H", "#define PTXVM_CLI_HELP_H", "",
           "static const struct { const char *command, *text; } cli_help[] = {"]
    for cmd, text in helps(sections).items():
        out.append('  {"%s",' % cmd)
        out.append(c_string(text) + "},")
    out += ["};", "", "#endif", ""]
    return "\n".join(out)


def roff_text(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    s = re.sub(r"`([^`]*)`", r"\\fB\1\\fR", s)
    return s


def roff_line(s):
    s = roff_text(s)
    return "\\&" + s if s.startswith((".", "'")) else s


def version():
    ver = {}
    with open(os.path.join(ROOT, "include/ptxvm.h")) as f:
        for m in re.finditer(r"#define PTXVM_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)", f.read()):
            ver[m.group(1)] = m.group(2)
    return "%s.%s.%s" % (ver["MAJOR"], ver["MINOR"], ver["PATCH"])


def man(title, sections):
    name, _, what = title.partition(" — ")
    out = ['.\\" ptxvm.1: GENERATED by scripts/gen_cli.py from docs/cli.md; do not edit.',
           '.TH PTXVM 1 "" "ptxvm %s" "User Commands"' % version(),
           ".SH NAME", "ptxvm \\- " + roff_text(what)]
    for head, blocks in sections:
        out.append('.SH "%s"' % ("DESCRIPTION" if head == "ptxvm" else head.upper()))
        for b in blocks:
            if b[0] == "pre":
                out += [".PP", ".nf", ".RS 4"] + [roff_line(x) if x else "" for x in b[1]] + [".RE", ".fi"]
            elif b[0] == "p":
                out += [".PP", roff_line(b[1])]
            elif b[0] == "h3":
                out.append('.SS "%s"' % b[1])
            else:
                out += [".TP", "\\fB" + roff_text(b[1]) + "\\fR", roff_line(b[2])]
    return "\n".join(out) + "\n"


def main():
    with open(SRC, encoding="utf-8") as f:
        title, sections = parse(f.read())
    if len(sys.argv) == 3 and sys.argv[1] == "--help-of":
        h = helps(sections)
        if sys.argv[2] not in h:
            sys.exit("no section '## ptxvm %s' in docs/cli.md" % sys.argv[2])
        sys.stdout.write(h[sys.argv[2]])
        return 0
    want = {HEADER: header(sections), MAN: man(title, sections)}
    if sys.argv[1:] == ["--check"]:
        stale = []
        for path, text in want.items():
            try:
                with open(path, encoding="utf-8") as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                stale.append(os.path.relpath(path, ROOT))
        if stale:
            print("stale (run python3 scripts/gen_cli.py): " + ", ".join(stale))
            return 1
        return 0
    if sys.argv[1:]:
        sys.exit(__doc__)
    for path, text in want.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
