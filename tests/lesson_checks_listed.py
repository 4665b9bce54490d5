#!/usr/bin/env python3
"""lesson_checks_listed.py QUICK_DIR LESSON_CHECKS.md: every check of the gpu suite's quick scripts
(tests/quick/NN_*.awk: each `FAIL:` message) must be listed in tests/LESSON_CHECKS.md, where each
lesson check says what its threshold is derived from. A check is known by the longest literal
piece of its message (the text between printf's % conversions). Exit 1 naming each check that is
not listed: add it to LESSON_CHECKS.md (the table for a lesson check, the correctness list else)."""
import pathlib
import re
import sys


def message_keys(awk_text):
    """The key of each FAIL message: its longest literal piece, trimmed."""
    keys = []
    for msg in re.findall(r'"FAIL: ((?:[^"\\]|\\.)*)"', awk_text):
        pieces = re.split(r'%[-+ 0-9.]*[a-z%]|\\n|\\"', msg)
        key = max((p.strip(" :,()") for p in pieces), key=len)
        if key:
            keys.append(key)
    return keys


def main():
    quick, doc = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]).read_text()
    scripts = sorted(p for p in quick.glob("[0-9]*.awk"))
    missing, n = [], 0
    for script in scripts:
        for key in message_keys(script.read_text()):
            n += 1
            if key not in doc:
                missing.append(f"{script.name}: '{key}'")
    for m in missing:
        print(f"FAIL: not in LESSON_CHECKS.md: {m}")
    print(f"{n} checks in {len(scripts)} quick scripts; {n - len(missing)} listed in LESSON_CHECKS.md")
    return 1 if missing or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
