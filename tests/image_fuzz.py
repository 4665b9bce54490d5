#!/usr/bin/env python3
"""image_fuzz.py EXE [COUNT] [SEED] [MULTIPLE]: deterministic fuzzing of a lab's --image reader (gl_image.h).

Writes COUNT (default 200) malformed or odd image files to a temporary directory - a fixed list
first (truncated data, wrong magic, wrong maxval, zero and oversized sides, headers promising
gigabytes with no data behind them, comments valid and unterminated, huge digit strings, NUL
bytes, valid small files), then random headers and random mutations of valid files - and runs
`EXE --image FILE --quick` for each with CUDA_VISIBLE_DEVICES empty. A small model of the PGM
rules below (pgm_size) says what each file is: one it rejects must end with exit 2 and a message
naming the file; a valid one must pass parsing and reach the GPU check, exit 77 (a valid picture
smaller than 3x3 may also be refused by the lab, exit 2). Every run must end within 10 s; a
signal, any other exit code or a hang is a failure. Exit 0 if all pass, 1 listing the failures,
77 if EXE --help does not mention --image (the lab takes no pictures).
"""
import os
import random
import subprocess
import sys
import tempfile

WHITESPACE = b" \t\n\v\f\r"
MAX_SIDE, MAX_PIXELS = 65535, 1 << 30


def skip(data, i):
    """Skip whitespace and '#' comments (to the next LF or CR) from i; None if the file ends."""
    while i < len(data):
        if data[i] in WHITESPACE:
            i += 1
        elif data[i] == ord("#"):
            while i < len(data) and data[i] not in b"\n\r":
                i += 1
            if i == len(data):
                return None
            i += 1
        else:
            return i
    return None


def number(data, i):
    """The decimal token at i: (value, end) or None if there is none. Thousands of digits are
    fine: past 20 significant ones the value is just "too large" (Python refuses to convert them)."""
    j = i
    while j < len(data) and 0x30 <= data[j] <= 0x39:
        j += 1
    digits = data[i:j].lstrip(b"0") or b"0"
    return (int(digits) if len(digits) <= 20 else 10**20, j) if j > i else None


def pgm_size(data):
    """The rules of gl_image_read_gray for Netpbm files (gl_pnm_read): (width, height) for a P5 or P6
    file it accepts, None for one it rejects. P6 has three bytes per pixel."""
    if data[:2] not in (b"P5", b"P6") or len(data) < 3 or (data[2] not in WHITESPACE and data[2] != ord("#")):
        return None
    channels = 3 if data[:2] == b"P6" else 1
    i, values = 2, []
    for k in range(3):
        i = skip(data, i)
        token = number(data, i) if i is not None else None
        if token is None:
            return None
        value, i = token
        values.append(value)
        if k < 2 and (i == len(data) or (data[i] not in WHITESPACE and data[i] != ord("#"))):
            return None
    width, height, maxval = values
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE) or width * height > MAX_PIXELS or maxval != 255:
        return None
    if i < len(data) and data[i] == ord("#"):  # a comment before the one whitespace byte
        while i < len(data) and data[i] not in b"\n\r":
            i += 1
    if i == len(data) or data[i] not in WHITESPACE:
        return None
    return (width, height) if len(data) - (i + 1) >= width * height * channels else None


def pgm(rng, width, height, header=None):
    """A valid P5 file with random pixels (or the given header with them)."""
    head = header if header is not None else b"P5\n%d %d\n255\n" % (width, height)
    return head + bytes(rng.randrange(256) for _ in range(width * height))


def ppm(rng, width, height, header=None):
    """A valid P6 file with random pixels (three bytes each)."""
    head = header if header is not None else b"P6\n%d %d\n255\n" % (width, height)
    return head + bytes(rng.randrange(256) for _ in range(3 * width * height))


def fixed_cases(rng):
    """(name, bytes) for every kind of file the brief lists; bytes None: a path that does not exist."""
    cases = [
        ("valid_3x3", pgm(rng, 3, 3)),
        ("valid_5x4", pgm(rng, 5, 4)),
        ("valid_17x3", pgm(rng, 17, 3)),
        ("valid_extra_bytes", pgm(rng, 4, 4) + b"trailing garbage\0\xff"),
        ("valid_nul_pixels", b"P5 3 3 255\n" + b"\0" * 9),
        ("valid_comments", pgm(rng, 4, 3, b"P5# c0\n4#c1\n# c2\r\n\t3 # c3\n255#c4\n")),
        ("valid_leading_zeros", pgm(rng, 3, 4, b"P5 0003 00004 000255\n")),
        ("valid_crlf", pgm(rng, 6, 3, b"P5\r\n6\r\n3\r\n255\r")),
        ("valid_second_newline_is_pixel", b"P5 3 3 255\n\n" + bytes(range(8))),
        ("valid_128x64", pgm(rng, 128, 64)),
        ("empty", b""),
        ("magic_P", b"P"),
        ("magic_only", b"P5"),
        ("magic_P2_ascii", b"P2\n3 3\n255\n" + b"0 1 2 3 4 5 6 7 8\n"),
        ("valid_P6_3x3", b"P6\n3 3\n255\n" + bytes(27)),
        ("valid_P6_7x5", ppm(rng, 7, 5)),
        ("valid_P6_comments", ppm(rng, 4, 3, b"P6# c\n4 3#w\n255\n")),
        ("P6_truncated_gray_size", b"P6 3 3 255\n" + bytes(9)),
        ("P6_truncated_one_byte", ppm(rng, 5, 4)[:-1]),
        ("P6_maxval_65535", b"P6 3 3 65535\n" + bytes(54)),
        ("P6_no_data", b"P6 30000 30000 255\n"),
        ("magic_P3_ascii", b"P3\n1 1\n255\n0 0 0\n"),
        ("magic_lowercase", b"p5 3 3 255\n" + bytes(9)),
        ("magic_png", b"\x89PNG\r\n\x1a\n" + bytes(64)),
        ("magic_no_space", b"P53 3 255\n" + bytes(9)),
        ("random_bytes", bytes(rng.randrange(256) for _ in range(200))),
        ("maxval_0", pgm(rng, 3, 3, b"P5 3 3 0\n")),
        ("maxval_1", pgm(rng, 3, 3, b"P5 3 3 1\n")),
        ("maxval_254", pgm(rng, 3, 3, b"P5 3 3 254\n")),
        ("maxval_256", pgm(rng, 3, 3, b"P5 3 3 256\n") + bytes(9)),
        ("maxval_65535", pgm(rng, 3, 3, b"P5 3 3 65535\n") + bytes(9)),
        ("size_0x0", b"P5 0 0 255\n"),
        ("size_0x5", b"P5 0 5 255\n" + bytes(5)),
        ("size_5x0", b"P5 5 0 255\n" + bytes(5)),
        ("size_65536x65536", b"P5 65536 65536 255\n"),
        ("size_65535x65535", b"P5 65535 65535 255\n"),
        ("size_65535x1_no_data", b"P5 65535 1 255\n"),
        ("size_30000x30000_no_data", b"P5 30000 30000 255\n"),
        ("size_32768x32768_no_data", b"P5 32768 32768 255\n"),
        ("negative_width", b"P5 -3 3 255\n" + bytes(9)),
        ("plus_width", b"P5 +3 3 255\n" + bytes(9)),
        ("float_height", b"P5 3 3.0 255\n" + bytes(9)),
        ("hex_width", b"P5 0x3 3 255\n" + bytes(9)),
        ("huge_digits_width", b"P5 " + b"9" * 5000 + b" 3 255\n" + bytes(9)),
        ("huge_digits_maxval", b"P5 3 3 " + b"7" * 5000 + b"\n" + bytes(9)),
        ("valid_huge_zeros_height", b"P5 3 " + b"0" * 5000 + b"3 255\n" + bytes(9)),
        ("overflow_64bit", b"P5 18446744073709551619 3 255\n" + bytes(9)),
        ("comment_unterminated", b"P5 3 3 # no end of line"),
        ("comment_only", b"P5 # nothing else"),
        ("comment_after_maxval_eof", b"P5 3 3 255# no end"),
        ("nul_in_header", b"P5 3\0 3 255\n" + bytes(9)),
        ("nul_before_width", b"P5 \0 3 3 255\n" + bytes(9)),
        ("nul_after_maxval", b"P5 3 3 255\0" + bytes(9)),
        ("missing_maxval", b"P5\n3 3\n"),
        ("missing_height", b"P5 3"),
        ("no_whitespace_after_maxval", b"P5 3 3 255"),
        ("truncated_pixels", pgm(rng, 8, 8)[:-1]),
        ("truncated_half", pgm(rng, 16, 16)[:-128]),
        ("truncated_no_pixels", b"P5 16 16 255\n"),
        ("missing_file", None),
    ]
    return cases


def mutate(rng, data):
    """A few random byte flips, insertions, deletions or a truncation of a valid file."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        # mutate the header more often: that is where the parser decides
        at = rng.randrange(min(len(data), 16) if rng.random() < 0.7 else len(data)) if data else 0
        if r < 0.4 and data:
            data[at] = rng.choice([rng.randrange(256), ord("#"), ord(" "), ord("\n"), ord("0"), ord("9"), 0])
        elif r < 0.55:
            data[at:at] = bytes([rng.choice(b"0123456789 #\n\t\0x-")])
        elif r < 0.7 and data:
            del data[at]
        else:
            data = data[:rng.randrange(len(data) + 1)]
    return bytes(data)


def random_header(rng):
    """A header made of odd tokens, with or without pixel bytes behind it."""
    tokens = [b"0", b"1", b"3", b"255", b"256", b"65535", b"65536", b"-1", b"", b"#c\n", b"9" * 40,
              b"4294967297", b"\0", b"x", b"00000000000000000000017"]
    seps = [b" ", b"\n", b"\t", b"\r", b"#comment\n", b"", b"  \n# x\r"]
    head = b"P5" + rng.choice(seps)
    for _ in range(3):
        head += rng.choice(tokens + [str(rng.randint(1, 20)).encode()] * 4) + rng.choice(seps)
    return head + bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 9, 60, 400])))


def cases(rng, count):
    fixed = fixed_cases(rng)
    out = fixed[:count]
    bases = [pgm(rng, w, h) for w, h in [(3, 3), (5, 4), (17, 3), (4, 7)]] + [ppm(rng, 5, 3), ppm(rng, 3, 4)]
    while len(out) < count:
        k = len(out)
        if rng.random() < 0.65:
            out.append((f"mutation_{k}", mutate(rng, rng.choice(bases))))
        else:
            out.append((f"header_{k}", random_header(rng)))
    return out


def main(argv):
    exe = argv[1]
    count = int(argv[2]) if len(argv) > 2 else 200
    seed = int(argv[3]) if len(argv) > 3 else 20261122
    # MULTIPLE (argv[4], default 1): the lab needs sides that are multiples of it (Lab 05: 2^L) and
    # may refuse a valid picture whose sides are not, with exit 2 naming the file.
    multiple = int(argv[4]) if len(argv) > 4 else 1
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    try:
        usage = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=10, env=env,
                               errors="replace")
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"FAIL: cannot run {exe} --help: {e}")
        return 1
    if "--image" not in usage.stdout + usage.stderr:
        print(f"SKIP: {exe} --help does not mention --image (the lab takes no pictures)")
        return 77
    rng = random.Random(seed)
    prog = os.path.basename(exe)
    bad, codes = 0, {}
    # The model must agree with what each fixed case is meant to be, or the script itself is wrong.
    for name, data in fixed_cases(random.Random(seed)):
        if data is not None and bool(pgm_size(data)) != name.startswith("valid_"):
            print(f"FAIL: image_fuzz.py's model misjudges its own case {name}")
            bad += 1
    with tempfile.TemporaryDirectory(prefix="gl_image_fuzz_") as tmp:
        for i, (name, data) in enumerate(cases(rng, count)):
            path = os.path.join(tmp, f"{i:03d}_{name}.pgm")
            if data is not None:
                with open(path, "wb") as f:
                    f.write(data)
            size = pgm_size(data) if data is not None else None
            fits = size and min(size) >= max(3, multiple) and size[0] % multiple == 0 and size[1] % multiple == 0
            allowed = (77,) if fits else (2, 77) if size else (2,)
            what = f"{os.path.basename(path)} ({'valid %dx%d' % size if size else 'invalid'}, {len(data or b'')} bytes)"
            try:
                run = subprocess.run([exe, "--image", path, "--quick"], capture_output=True, text=True,
                                     timeout=10, env=env, errors="replace")
                rc = run.returncode
            except subprocess.TimeoutExpired:
                print(f"FAIL: hang (> 10 s): {what}")
                bad += 1
                continue
            codes[rc] = codes.get(rc, 0) + 1
            if rc not in allowed:
                kind = " (signal)" if rc < 0 else ""
                print(f"FAIL: exit {rc}{kind}, want {' or '.join(map(str, allowed))}: {what}\n{run.stderr[-500:]}")
                bad += 1
            elif rc == 2 and os.path.basename(path) not in run.stderr:
                print(f"FAIL: exit 2 without a message naming the file: {what}: {run.stderr[-300:]!r}")
                bad += 1
    print(f"{count} image files, seed {seed}, {prog}: exit codes {dict(sorted(codes.items()))}; {bad} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
