#!/usr/bin/env python3
"""tests/gpu_suite_test.py TOOL: tools/gpu_suite.py's runner on made-up tests, no GPU and no meson:
exit codes read as meson reads them (0 OK, 77 skipped, other codes and timeouts failed), each test's
environment and working directory, a test past its timeout ended with the processes it started, the
timing-checked test run alone before the others, the others really run side by side, and the TSV and
logs written. Exit 0 if every check holds."""
import importlib.util
import os
import sys
import tempfile
import time


def load(path):
    spec = importlib.util.spec_from_file_location("gpu_suite", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake(name, script, timeout=30, env=None, workdir=None):
    return {"name": name, "cmd": ["bash", "-c", script], "timeout": timeout, "env": env or {}, "workdir": workdir}


def main():
    gs = load(sys.argv[1])
    failures = []

    def check(what, ok):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        stamp = os.path.join(tmp, "quick_done")
        tests = [
            # its command names lab_quick.sh, as a lab's lesson check does: it must run alone, first
            fake("lab --quick (lessons)", f"sleep 0.5; touch {stamp}; : lab_quick.sh"),
            fake("exit 0", "exit 0"),
            fake("exit 77", "exit 77"),
            fake("exit 1", "exit 1"),
            fake("past its timeout", f"(sleep 1.5; touch {tmp}/late) & wait", timeout=1),
            fake("sees its env", '[ "$GS_TEST_VAR" = 42 ]', env={"GS_TEST_VAR": "42"}),
            fake("in its workdir", f'[ "$(pwd -P)" = "$(cd {tmp} && pwd -P)" ]', workdir=tmp),
            fake("after the quick test", f"[ -e {stamp} ]"),
        ] + [fake(f"sleeper {k}", "sleep 1") for k in range(4)]
        out = os.path.join(tmp, "suite.tsv")
        start = time.monotonic()
        count = gs.run_suite(tests, tmp, out, 8)
        secs = time.monotonic() - start
        check(f"counts: {count}", count == {"OK": 9, "FAIL": 2, "SKIP": 1})
        with open(out) as f:
            rows = [line.rstrip("\n").split("\t") for line in f][1:]
        by_name = {r[1]: r for r in rows}
        check("one TSV row a test", len(rows) == len(tests) and set(by_name) == {t["name"] for t in tests})
        check("exit 1 failed with its code", by_name["exit 1"][3:5] == ["FAIL", "1"])
        check("the timeout failed as a timeout", by_name["past its timeout"][3:5] == ["FAIL", "timeout"])
        check("77 skipped", by_name["exit 77"][3] == "SKIP")
        check("env and workdir passed", by_name["sees its env"][3] == "OK" and by_name["in its workdir"][3] == "OK")
        check("the timing-checked test ran alone, before the rest",
              by_name["lab --quick (lessons)"][2] == "alone" and by_name["after the quick test"][3] == "OK")
        # serial: 0.5 + 4 x 1 + 1 (timeout) s at least; side by side about 0.5 + 1
        check(f"the rest side by side ({secs:.1f} s < 4 s)", secs < 4.0)
        time.sleep(max(0.0, 3.0 - (time.monotonic() - start)))  # the child would touch at about 2 s
        check("what the timed-out test started was ended with it", not os.path.exists(os.path.join(tmp, "late")))
        logs = os.path.join(tmp, "suite.logs")
        check("a log a test, starting with its command",
              all(open(os.path.join(logs, f"{i}.log")).readline().startswith("$ bash -c") for i in range(len(tests))))
    print("all checks hold" if not failures else f"{len(failures)} checks failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
