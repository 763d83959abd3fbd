#!/usr/bin/env python3
"""maxrss.py CMD [ARG...] -- runs CMD (its output discarded) and prints its
peak resident set size in MiB (getrusage of the child). A tool of the
adversarial table (memory that must stay bounded)."""
import resource
import subprocess
import sys

if len(sys.argv) < 2:
    print(__doc__, file=sys.stderr)
    sys.exit(2)
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL, check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
