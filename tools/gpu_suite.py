#!/usr/bin/env python3
"""gpu_suite.py BUILD OUT.tsv [SUITE] [JOBS]: run one meson suite (default gpu) of a configured build
in a fraction of meson's time, for a GPU machine held for minutes (tools/gpu_session.sh's `suite`).

Meson runs every test marked is_parallel: false alone, one after the other, and most of the gpu suite
is marked so (a lab's --quick, the exercises, --sms 16, ...), which takes longer than a lent GPU's
command may run. Here the tests whose checks compare timings (the lab_quick.sh lesson checks, named
"NAME --quick (...)"), and which other work on the GPU would disturb, run first, one at a time, as
meson would run them; then every other test of the suite runs JOBS at a time (default 8). Each test
gets its own command line, environment, working directory and timeout from `meson introspect
--tests`, and its exit code is read as meson reads it (0 OK, 77 skipped, else failed).

Writes OUT.tsv (index, name, phase, result, exit code, seconds) and, beside it, OUT.tsv's stem +
".logs/N.log" (each test's output); prints one line a test and a last line "N OK, N failed, N
skipped in S s". Exit 0 only if no test failed."""
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import time


def load_tests(build, suite):
    out = subprocess.run(["meson", "introspect", "--tests"], cwd=build, check=True, capture_output=True, text=True)
    return [t for t in json.loads(out.stdout) if any(s.split(":")[-1] == suite for s in t["suite"])]


def timing_checked(test):
    """The lesson checks of tests/quick/*.awk compare timings: they run alone."""
    return " --quick (" in test["name"] and "lab_quick.sh" in " ".join(test["cmd"])


def run_one(index, test, build, logdir):
    env = dict(os.environ, **test.get("env", {}))
    start = time.monotonic()
    with open(os.path.join(logdir, f"{index}.log"), "w") as log:
        log.write("$ " + " ".join(test["cmd"]) + "\n")
        log.flush()
        # a process group of its own, so that a test past its timeout is ended with all it started
        proc = subprocess.Popen(test["cmd"], cwd=test.get("workdir") or build, env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=test.get("timeout") or 30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = "timeout"
    result = "OK" if rc == 0 else "SKIP" if rc == 77 else "FAIL"
    return index, result, rc, time.monotonic() - start


def run_suite(tests, build, out, jobs):
    """Runs tests (meson introspect's records) as the docstring says; returns {OK, FAIL, SKIP: count}."""
    logdir = os.path.splitext(out)[0] + ".logs"
    os.makedirs(logdir, exist_ok=True)
    alone = [i for i, t in enumerate(tests) if timing_checked(t)]
    rest = [i for i, t in enumerate(tests) if not timing_checked(t)]
    rows, start = [], time.monotonic()

    def record(phase, res):
        index, result, rc, secs = res
        rows.append((index, tests[index]["name"], phase, result, rc, secs))
        print(f"{index:3d} {result:4s} {secs:7.1f}s  {tests[index]['name']}", flush=True)

    for i in alone:
        record("alone", run_one(i, tests[i], build, logdir))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for res in pool.map(lambda i: run_one(i, tests[i], build, logdir), rest):
            record(f"{jobs} at a time", res)
    with open(out, "w") as f:
        f.write("index\tname\tphase\tresult\texit\tseconds\n")
        for row in sorted(rows):
            f.write("%d\t%s\t%s\t%s\t%s\t%.1f\n" % row)
    count = {k: sum(r[3] == k for r in rows) for k in ("OK", "FAIL", "SKIP")}
    print(f"{count['OK']} OK, {count['FAIL']} failed, {count['SKIP']} skipped in {time.monotonic() - start:.0f} s")
    return count


def main():
    if len(sys.argv) < 3:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    build, out = sys.argv[1], sys.argv[2]
    suite = sys.argv[3] if len(sys.argv) > 3 else "gpu"
    jobs = sys.argv[4] if len(sys.argv) > 4 else "8"
    if not jobs.isdigit() or not 1 <= int(jobs) <= 64:
        print(f"JOBS '{jobs}' is invalid: allowed integers 1..64", file=sys.stderr)
        return 2
    jobs = int(jobs)
    tests = load_tests(build, suite)
    if not tests:
        print(f"no test in suite '{suite}' of {build}", file=sys.stderr)
        return 2
    return 1 if run_suite(tests, build, out, jobs)["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
