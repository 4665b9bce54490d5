"""torch_timing.py - how the PyTorch peers (haar_torch.py, cnn_torch.py) time GPU work, once: CUDA
events around each repetition, warm-up first, median / min / max in ms, as the labs' gl_time does.
events_ms times each call on its own (work of a millisecond or more); graph_ms captures `calls`
calls in a CUDA graph and replays it, for work of microseconds whose launch cost would dominate."""
import statistics

import torch


def _summary(samples):
    return statistics.median(samples), min(samples), max(samples)


def events_ms(fn, reps=20, warmup=3):
    """Median, min, max ms of fn() timed one call at a time."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    return _summary(samples)


def graph_ms(fn, calls=20, reps=15, warmup=3):
    """Median, min, max ms per call of fn(), `calls` calls per replay of one captured CUDA graph
    (three eager calls first on a side stream, outside the capture: cuDNN's benchmark mode picks
    its algorithm there)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    for _ in range(warmup):
        graph.replay()
    samples = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / calls)
    return _summary(samples)
