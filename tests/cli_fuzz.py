#!/usr/bin/env python3
"""cli_fuzz.py EXE [COUNT] [SEED]: deterministic command-line fuzzing of one lab executable.

Runs EXE with COUNT (default 300) random argument vectors built from the lab's own flags and
names (from --list), unknown flags, and awkward values: empty strings, negative and huge numbers,
hex, floats, paths that do not exist, directories, /dev/full. CUDA_VISIBLE_DEVICES is empty, so
a vector that parses reaches the GPU check and exits 77 at once: the test is about the command
line, on any machine. Every run must end within 10 s with exit 0, 2 or 77 (never a signal, a
crash or a hang), and an exit 2 must name the program in its message.
"""
import os
import random
import subprocess
import sys

FLAGS = ["--help", "--list", "--only", "--quick", "--size", "--reps", "--warmup", "--seed", "--device",
         "--csv", "--flush-l2", "--once", "--sms"]
VALUE_FLAGS = {"--only", "--size", "--reps", "--warmup", "--seed", "--device", "--csv", "--sms"}
WEIRD = ["", "0", "-1", "1", "3", "1024", "1023", "4096", "65536", "1048576", "99999999999999999999",
         "-9223372036854775808", "0x400", "1e9", "2.5", "abc", " ", "-", "--", ",", ",,", "=",
         "/no/such/dir/x.csv", "/tmp", "/dev/full", "/tmp/gl_fuzz.csv", "nosuch", "seed,nosuch",
         "\u00e9", "%s%n", "x" * 3000]


def vector(rng, names):
    args = []
    for _ in range(rng.randint(0, 5)):
        r = rng.random()
        if r < 0.65:
            flag = rng.choice(FLAGS)
            if flag in VALUE_FLAGS:
                value = rng.choice(names) if flag == "--only" and rng.random() < 0.6 else rng.choice(WEIRD)
                if rng.random() < 0.3:
                    args.append(flag + "=" + value)
                elif rng.random() < 0.9:
                    args += [flag, value]
                else:
                    args.append(flag)  # value missing
            else:
                args.append(flag + ("=1" if rng.random() < 0.1 else ""))
        elif r < 0.8:
            args.append(rng.choice(["--fast", "-x", "-", "--sizes", "--only-", "size", "--CSV"]))
        else:
            args.append(rng.choice(WEIRD + names))
    return args


def main(argv):
    exe = argv[1]
    count = int(argv[2]) if len(argv) > 2 else 300
    seed = int(argv[3]) if len(argv) > 3 else 20261122
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    listing = subprocess.run([exe, "--list"], capture_output=True, text=True, timeout=10, env=env)
    names = [line.split()[0] for line in listing.stdout.splitlines() if line.strip()]
    if listing.returncode != 0 or not names:
        print(f"FAIL: {exe} --list gave exit {listing.returncode} and {len(names)} names")
        return 1
    rng = random.Random(seed)
    prog = os.path.basename(exe)
    bad, codes = 0, {}
    for i in range(count):
        args = vector(rng, names)
        try:
            run = subprocess.run([exe] + args, capture_output=True, text=True, timeout=10, env=env,
                                 errors="replace")
            rc = run.returncode
        except subprocess.TimeoutExpired:
            print(f"FAIL: hang (> 10 s): {prog} {args!r}")
            bad += 1
            continue
        codes[rc] = codes.get(rc, 0) + 1
        if rc not in (0, 2, 77):
            print(f"FAIL: exit {rc}{' (signal)' if rc < 0 else ''}: {prog} {args!r}\n{run.stderr[-500:]}")
            bad += 1
        elif rc == 2 and prog not in run.stderr:
            print(f"FAIL: exit 2 without a message naming {prog}: {args!r}: {run.stderr[-300:]!r}")
            bad += 1
    if os.path.exists("/tmp/gl_fuzz.csv"):
        os.remove("/tmp/gl_fuzz.csv")
    print(f"{count} argument vectors, seed {seed}: exit codes {dict(sorted(codes.items()))}; {bad} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
