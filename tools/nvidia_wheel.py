#!/usr/bin/env python3
"""nvidia_wheel.py NAME [CUDA_MAJOR]: the folder of NVIDIA's `nvidia-NAME` wheel (the Python package
nvidia.NAME, e.g. PyTorch's cuDNN or NCCL: include/ and lib/), printed for meson to link against.
With CUDA_MAJOR: exit 1 when the installed nvidia-NAME distributions are all for another CUDA major
(nvidia-NAME-cuNN), since such a wheel would load against the wrong runtime libraries. Exit 1 also
when there is no such package."""
import importlib
import importlib.metadata as md
import sys


def main(argv):
    name = argv[0]
    try:
        module = importlib.import_module("nvidia." + name)
    except ImportError:
        return 1
    if len(argv) > 1:
        dists = {(d.metadata["Name"] or "").lower() for d in md.distributions()}
        ours = {d for d in dists if d.startswith("nvidia-" + name)}
        if ours and not ours & {"nvidia-" + name, f"nvidia-{name}-cu{argv[1]}"}:
            return 1
    print(list(module.__path__)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
