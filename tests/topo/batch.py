# SPDX-License-Identifier: BSD-3-Clause
"""Many commands of compare.py and genmachine.py in one Python process.

    batch.py LIST

Each line of LIST is OUT followed by a command, tab-separated:

    OUT  compare|genmachine  ARG...
    OUT  bitmap  CPULIST            (compare.hwloc_bitmap of the list)

Each command runs as `python3 tests/topo/PROG.py ARG...` would, in this
process, its stdout and stderr (and those of the programs it starts) into
the file OUT, and its exit status into OUT.st (0, the status it exits
with, 1 for an exception, whose traceback goes to OUT). The commands run
in the order listed; a later one may read what an earlier one wrote.

Its use: tests/topo/random.sh runs a few dozen comparisons for each
machine; one Python start-up each (and its imports) cost more than the
comparisons themselves on a busy host.
"""
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import genmachine  # noqa: E402

PROGS = {"compare": compare.main, "genmachine": genmachine.main}


def run(out, prog, args):
    """One command, its output into OUT; its exit status."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = (os.dup(1), os.dup(2))
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    status = 0
    try:
        if prog == "bitmap":
            print(compare.hwloc_bitmap(compare.cpulist(args[0])))
        else:
            sys.argv = [prog + ".py"] + args
            PROGS[prog]()
    except SystemExit as e:
        if e.code is None:
            status = 0
        elif isinstance(e.code, int):
            status = e.code
        else:
            sys.stderr.write("%s\n" % e.code)
            status = 1
    except Exception:  # as an uncaught exception ends python3
        traceback.print_exc()
        status = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
    return status


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    with open(sys.argv[1]) as f:
        lines = [ln.rstrip("\n") for ln in f if ln.strip()]
    for ln in lines:
        fields = ln.split("\t")
        if len(fields) < 3 or (fields[1] not in PROGS and fields[1] != "bitmap"):
            sys.stderr.write("batch.py: not OUT, PROG and arguments: %r\n" % ln)
            sys.exit(2)
        st = run(fields[0], fields[1], fields[2:])
        with open(fields[0] + ".st", "w") as f:
            f.write("%d\n" % st)


if __name__ == "__main__":
    main()
