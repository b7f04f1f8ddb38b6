# usage: LOSS=… LOOP=… python expand_sim.py B S V
# Upper bound of what expandable segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) need:
# every live tensor on its own 2 MiB pages (free pages unmapped before an OOM), against allocated.
import os, sys
sys.path.insert(0, '.')
import meta_trace
B, S, V = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
tr = meta_trace.main('lora', B, S, [32, 4096, 11008, 32, V, 4096])
P = 2 << 20
cur = 0; curp = 0; peak = 0; peakp = 0; live = {}
small = 0
for e in tr.ev:
    if e[0] == 'a':
        n = e[2]; live[e[1]] = n; cur += n
        curp += -(-n // P) * P if n > (1 << 20) else n  # small blocks share the small pool's pages
    else:
        n = live.pop(e[1], None)
        if n is None: continue
        cur -= n; curp -= -(-n // P) * P if n > (1 << 20) else n
    peak = max(peak, cur); peakp = max(peakp, curp)
G = 2**30
print(f"{os.environ.get('LOOP','script')} {os.environ.get('LOSS','hf_shift')} V={V} T={B*S}: allocated {peak/G:.3f}  page-rounded {peakp/G:.3f}  (+{(peakp-peak)/peak*100:.1f} %)")
