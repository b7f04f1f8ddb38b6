#!/usr/bin/env python3
"""Writes tests/data/traces/: small traces in the exact layouts PyTorch writes, for the trace
reader's tests (src/validation/trace). Python's standard library only.

    python3 tools/make_trace_fixtures.py tests/data/traces
    python3 tools/make_trace_fixtures.py --big /tmp/big.pickle 100   # a ~100 MB snapshot to time

They are SYNTHETIC: this machine has no torch. Each follows the writer's source:
- timeline.json     prof.export_memory_timeline("x.json"): [times_us, sizes], each row
                    [0, PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT,
                    AUTOGRAD_DETAIL, unknown] (torch/profiler/_memory_profiler.py, _coalesce_timeline)
- timeline.json.gz  the same, gzipped (the profiler writes .json.gz when the path ends so)
- timeline.raw.json [[time_ns, action, bytes, category]] (export_memory_timeline_raw; time -1 for
                    tensors alive before profiling, bytes negative for DESTROY)
- snapshot.pickle   torch.cuda.memory._dump_snapshot(): pickle.dump of {"segments", "device_traces"}
                    (torch/cuda/memory.py; c10/cuda/CUDACachingAllocator.h's TraceEntry actions)
- hostile.pickle    a pickle whose REDUCE would call os.system (never loaded here: written by hand
                    from opcodes)
Real recordings replace them when a machine with torch is at hand:
    python3 tools/mem_report.py --timeline tests/data/traces/recorded-timeline.json
    python3 tools/measure_gpu.py --snapshot ...    (CUDA)
The step they describe (in MiB): weights 1000, then forward saves 300 of activations, the loss 100
of temporaries, backward frees the activations as 1000 of gradients appear, the optimizer's first
step makes 2000 of state and a 500 temporary. The peak (by hand) is at optimizer_step:
1000 + 1000 + 2000 + 500 = 4500 MiB.
"""

import gzip
import json
import os
import pickle
import sys

MIB = 1 << 20
# (time_us, [PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL, unknown])
ROWS = [
    (1_000, [1000, 0, 0, 0, 0, 0, 0, 0]),        # load
    (2_000, [1000, 0, 8, 0, 300, 0, 0, 0]),      # forward: input 8 B, activations 300 B
    (2_500, [1000, 0, 8, 100, 300, 0, 0, 0]),    # loss: logits 100 B
    (3_000, [1000, 0, 8, 100, 150, 600, 0, 0]),  # backward: half the activations freed, gradients
    (3_500, [1000, 0, 0, 0, 0, 1000, 0, 0]),     # backward done
    (4_000, [1000, 2000, 0, 500, 0, 1000, 0, 0]),  # optimizer_step: the peak, 4500 B
    (4_500, [1000, 2000, 0, 0, 0, 1000, 0, 0]),  # the temporary freed
    (5_000, [1000, 2000, 0, 0, 0, 0, 0, 0]),     # zero_grad
]


def timeline():
    return [[t for t, _ in ROWS], [[0] + [b * MIB for b in sizes] for _, sizes in ROWS]]


def raw():
    """The same step as events: each change of a category's bytes is one CREATE (action 1) or
    DESTROY (action 3) of that many bytes; the weights existed before profiling (PREEXISTING, 0)."""
    events = [[-1, 0, 1000 * MIB, 0]]
    before = ROWS[0][1]
    for t, sizes in ROWS[1:]:
        for c, (a, b) in enumerate(zip(before, sizes)):
            if b != a:
                events.append([t * 1000, 1 if b > a else 3, (b - a) * MIB, c])
        before = sizes
    return events


def frames(*names):
    return [{"filename": f, "line": 1, "name": n} for f, n in names]


LOAD = frames(("torch/nn/modules/module.py", "_apply"), ("train.py", "main"))
FWD = frames(("torch/nn/functional.py", "linear"), ("torch/nn/modules/module.py", "forward"))
LOSS = frames(("torch/nn/functional.py", "cross_entropy"), ("train.py", "main"))
BWD = frames(("??", "torch::autograd::Engine::evaluate_function"), ("torch/autograd/__init__.py", "backward"))
OPT = frames(("torch/optim/adamw.py", "_multi_tensor_adamw"), ("torch/optim/optimizer.py", "wrapper"))


def snapshot():
    """One device, sizes in MiB. 200 of weights exist before the history starts (live at the end,
    never in the trace: preexisting); then the step above, in blocks. Peak allocated (by hand):
    200 + 800 (weights) + 1000 (grads) + 2000 (state) + 500 (temporary) = 4500 MiB, at the 10th
    event. Reserved: 512 MiB before the history, + 8192 MiB segment = 8704 MiB."""
    t = [0]
    events = []

    def ev(action, addr, size, fr):
        t[0] += 100
        events.append({"action": action, "addr": addr, "size": size * MIB, "stream": 0, "time_us": t[0], "frames": fr})

    ev("segment_alloc", 0x10000, 8192, [])
    ev("alloc", 0x10000, 800, LOAD)               # weights (the other 200 B are preexisting)
    ev("alloc", 0x11000, 300, FWD)                # saved activations
    ev("alloc", 0x12000, 100, LOSS)               # logits
    ev("alloc", 0x13000, 1000, BWD)               # gradients
    ev("free_requested", 0x11000, 300, FWD)
    ev("free_completed", 0x11000, 300, FWD)
    ev("free_completed", 0x12000, 100, LOSS)
    ev("alloc", 0x14000, 2000, OPT)               # optimizer state (still live at the end)
    ev("alloc", 0x15000, 500, OPT)                # a temporary of the step: the peak is here
    ev("free_completed", 0x15000, 500, OPT)
    ev("free_completed", 0x13000, 1000, BWD)      # zero_grad(set_to_none=True)
    segments = [{
        "device": 0, "address": 0x10000, "total_size": (8192 + 512) * MIB, "allocated_size": 3000 * MIB,
        "active_size": 3000 * MIB, "requested_size": 3000 * MIB, "stream": 0, "segment_type": "large",
        "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
        "blocks": [
            {"address": 0x0F000, "size": 200 * MIB, "requested_size": 200 * MIB, "state": "active_allocated", "frames": []},
            {"address": 0x10000, "size": 800 * MIB, "requested_size": 800 * MIB, "state": "active_allocated", "frames": LOAD},
            {"address": 0x14000, "size": 2000 * MIB, "requested_size": 2000 * MIB, "state": "active_allocated", "frames": OPT},
            {"address": 0x16000, "size": 4096 * MIB, "requested_size": 0, "state": "inactive", "frames": []},
        ],
    }]
    # 512 MiB of the segment's reserve is not in the trace (reserved before the history started).
    return {"segments": segments, "device_traces": [events], "allocator_settings": {}, "external_annotations": []}


def hostile():
    """pickle protocol 2: PROTO 2, GLOBAL 'posix system', the argument tuple, REDUCE, STOP — what
    pickle.loads would turn into os.system('echo pwned')."""
    return b"\x80\x02cposix\nsystem\nq\x00X\x0a\x00\x00\x00echo pwnedq\x01\x85q\x02Rq\x03."


def main(out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "timeline.json"), "w") as f:
        json.dump(timeline(), f)
    with gzip.GzipFile(os.path.join(out, "timeline.json.gz"), "wb", mtime=0) as f:
        f.write(json.dumps(timeline()).encode())
    with open(os.path.join(out, "timeline.raw.json"), "w") as f:
        json.dump(raw(), f)
    with open(os.path.join(out, "snapshot.pickle"), "wb") as f:
        pickle.dump(snapshot(), f, protocol=4)
    with open(os.path.join(out, "hostile.pickle"), "wb") as f:
        f.write(hostile())


def big_snapshot(path, megabytes):
    """A snapshot of about `megabytes` for the reading figures (docs/trace.md), not committed:
    steps of the fixture's events repeated at fresh addresses, with 64 distinct frame stacks of
    12 frames each shared among the events as torch's symbolized frames are."""
    stacks = [frames(*[("torch/nn/modules/module.py" if j % 3 else f"model_{i}.py", f"fn_{i}_{j}") for j in range(12)])
              for i in range(64)]
    events, t, addr = [], 0, 0x100000
    per_event = 105  # bytes a pickled event takes, its 12 frames as memo references (measured)
    n = megabytes * 1_000_000 // per_event
    live = []
    for k in range(n):
        t += 1
        if live and (k % 3 == 2):
            a, size = live.pop(0)
            events.append({"action": "free_completed", "addr": a, "size": size, "stream": 0, "time_us": t, "frames": list(stacks[k % 64])})
        else:
            addr += 4096
            size = 512 * (1 + k % 97)
            live.append((addr, size))
            events.append({"action": "alloc", "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": list(stacks[k % 64])})
    snapshot = {"segments": [], "device_traces": [events]}
    with open(path, "wb") as f:
        pickle.dump(snapshot, f, protocol=4)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--big":
        big_snapshot(sys.argv[2], int(sys.argv[3]))
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/traces")
