# Reserved-memory prediction for the Answer.AI Llama-2-7B rows: persistent FSDP state + unshard-stream pool
# (root + 2 decoder units, see NOTES) + the default-stream activation trace (meta replay) through cca_sim.
import sys, json
import meta_trace, cca_sim
G = 2 ** 30
P_total, P_root, P_unit = 6_738_415_616, 262_144_000 + 4096, 202_383_360
P_lora = 32 * (3 * 64 * (4096 + 4096) + 2 * 64 * (4096 + 11008) + 64 * (11008 + 4096))   # q,k,v,gate,up,down
rows = [("lora", 4, 2048, 2, 16.14), ("lora", 6, 2048, 2, 21.35), ("lora", 4, 2048, 1, 22.04),
        ("lora", 1, 512, 2, 10.24), ("lora", 1, 2048, 2, 10.22),
        ("qlora", 4, 2048, 2, 11.22), ("qlora", 10, 2048, 2, 20.97), ("qlora", 8, 2048, 1, 20.94),
        ("qlora", 1, 512, 2, 4.98), ("qlora", 1, 2048, 2, 5.21)]
cap = float(sys.argv[1]) * G if len(sys.argv) > 1 else None
out = []
for train, B, S, shard, meas in rows:
    N = shard                                   # 2 = FULL_SHARD over 2 GPUs, 1 = NO_SHARD ("ddp")
    if train == "lora":
        base = P_total * 2 / N; unit_b = P_unit * 2
    else:
        lin = P_total - 262_410_240
        base = (lin * 4.127 / 8 + 262_410_240 * 2) / N + 98.01 * 2**20; unit_b = P_unit * 0.5737
    lora = P_lora * 2 / N * (1 + 2 + 1)         # params + AdamW m,v (bf16) + grad shard
    unshard_pool = (P_root * 2 + 2 * unit_b) if N > 1 else 0
    persistent = base + lora + unshard_pool
    tr = meta_trace.main(train, B, S, [32, 4096, 11008, 32, 32000, 4096])
    res, sim = cca_sim.replay(tr.ev, persistent=persistent, cap=cap, iters=2)
    a, r = res[1]
    out.append(dict(train=train, B=B, S=S, N=N, measured=meas, act_alloc=tr.peak / G, pred_alloc=a / G, pred_reserved=r / G,
                    frag=(r - a) / G, flushes=sim.flushes))
    print(f"{train:5s} B={B:2d} S={S} {'FSDP' if N>1 else 'DDP '}: act peak {tr.peak/G:6.2f}  pred alloc {a/G:6.2f}  pred reserved {r/G:6.2f}"
          f"  (reserved-alloc {(r-a)/G:5.2f})  measured {meas:6.2f}  err {100*(r/G-meas)/meas:+5.1f}%  flushes {sim.flushes}", flush=True)
json.dump(out, open(f"out/predict_7b_cap{sys.argv[1] if cap else 'none'}.json", "w"), indent=1)
