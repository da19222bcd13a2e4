#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The command blocks of README.md and of the man pages' EXAMPLES, in
order, as steps for tests/doc_blocks.sh.

    doc_blocks.py FILE OUTDIR

FILE is README.md (blocks: lines indented four spaces after a blank
line) or a man page (its EXAMPLES' .EX/.EE and .nf/.fi blocks, roff
escapes undone). Each step goes to OUTDIR/NNN.{how,cmd,want}:

  how   one word: "run" (a command run as written; "$ " transcripts give
        one step per command, with its output in want), "script" (a
        block of commands without output, run as written), "file NAME" (a
        block of source that the next step compiles as NAME), or a word
        for a block that is recognised rather than run as written
        (README: demo, suite, bench, package, plugstack, slurm; a man
        page: slurm)
  cmd   the command (or the file's text)
  want  the transcript's output for it (may be empty)

OUTDIR/blocks lists the blocks: "NNN-first how: first line".
"""
import os
import re
import sys


def readme_blocks(text):
    lines = text.split("\n")
    blocks, cur, prev_blank = [], None, True
    for l in lines:
        if l.startswith("    ") and (cur is not None or prev_blank):
            if cur is None:
                cur = []
                blocks.append(cur)
            cur.append(l[4:])
        elif l.strip() == "" and cur is not None:
            cur.append("")
        else:
            cur = None
        prev_blank = l.strip() == ""
    return [[x for x in b] for b in blocks]


def roff_text(l):
    l = l.replace("\\-", "-").replace("\\(aq", "'").replace("\\(ga", "`")
    l = l.replace("\\e", "\\").replace("\\(lq", '"').replace("\\(rq", '"')
    return l


def man_blocks(text):
    blocks, cur, on = [], None, False
    for l in text.split("\n"):
        if l.startswith(".SH EXAMPLES"):
            on = True
            continue
        if on and l.startswith(".SH "):
            break
        if not on:
            continue
        if l in (".EX", ".nf"):
            cur = []
            continue
        if l in (".EE", ".fi"):
            blocks.append(cur)
            cur = None
            continue
        if cur is not None:
            cur.append(roff_text(l))
    return blocks


def strip_trailing(b):
    while b and b[-1] == "":
        b.pop()
    return b


def transcript_steps(b):
    """'$ cmd' lines (a trailing backslash continues) and their output."""
    steps, i = [], 0
    while i < len(b):
        l = b[i]
        if not l.startswith("$ "):
            i += 1
            continue
        cmd = [l[2:]]
        while cmd[-1].endswith("\\") and i + 1 < len(b):
            i += 1
            cmd.append(b[i])
        i += 1
        out = []
        while i < len(b) and not b[i].startswith("$ "):
            out.append(b[i])
            i += 1
        steps.append(["run", "\n".join(cmd), "\n".join(strip_trailing(out))])
    return steps


def classify_readme(b):
    first = b[0].strip()
    if first.startswith("sh scripts/demo.sh"):
        return [["demo", "\n".join(b), ""]]
    if first.startswith("sh scripts/test.sh"):
        return [["suite", "\n".join(b), ""]]
    if first.startswith("make bench"):
        return [["bench", "\n".join(b), ""]]
    if first.startswith("dpkg-buildpackage"):
        return [["package", "\n".join(b), ""]]
    if first.startswith("required "):
        return [["plugstack", "\n".join(b), ""]]
    if first.startswith("$ srun"):
        return [["slurm", "\n".join(b), ""]]
    if first.startswith("$ "):
        return transcript_steps(b)
    # commands without a transcript: each line run (a line of only a
    # comment goes with the command above), its output not compared
    steps = []
    for l in b:
        if l.strip().startswith("#") and steps:
            steps[-1][1] += "\n" + l
        elif l.strip():
            steps.append(["script", l, ""])
    return steps


def classify_man(blocks):
    steps = []
    for b in blocks:
        b = strip_trailing(b)
        if not b:
            continue
        if any(l.startswith("$ srun") for l in b):
            steps.append(["slurm", "\n".join(b), ""])
        elif b[0].startswith("$ "):
            steps.extend(transcript_steps(b))
        else:
            # source for the next compile: its name from that command
            steps.append(["file", "\n".join(b), ""])
    for i, s in enumerate(steps):
        if s[0] == "file":
            m = None
            for t in steps[i + 1:]:
                m = re.search(r"(\S+\.c)\b", t[1])
                if m:
                    break
            s[0] = "file " + (m.group(1) if m else "example.c")
    return steps


def main():
    src, out = sys.argv[1], sys.argv[2]
    text = open(src).read()
    os.makedirs(out, exist_ok=True)
    if src.endswith(".md"):
        steps = []
        for b in readme_blocks(text):
            b = strip_trailing(b)
            if b:
                steps.extend(classify_readme(b))
    else:
        steps = classify_man(man_blocks(text))
    with open(os.path.join(out, "blocks"), "w") as f:
        for n, (how, cmd, want) in enumerate(steps):
            base = os.path.join(out, "%03d" % n)
            open(base + ".how", "w").write(how + "\n")
            open(base + ".cmd", "w").write(cmd + "\n")
            open(base + ".want", "w").write(want + ("\n" if want else ""))
            f.write("%03d %s: %s\n" % (n, how, cmd.split("\n")[0]))


main()
