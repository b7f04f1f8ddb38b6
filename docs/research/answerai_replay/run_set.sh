#!/bin/bash
# per-token sets: dims L H I nh V max_pos
D="8 1024 2752 16 2000 1024"
for mode in fsdp plain ddp; do for B in 1 2; do
  OUT_JSON=out/${mode}_lora_${B}_1024.json python3 replay.py $mode lora $B 1024 $D 2>&1 | grep "^\[" 
done; done
for B in 1 2; do OUT_JSON=out/fsdp_qlora_${B}_1024.json python3 replay.py fsdp qlora $B 1024 $D 2>&1 | grep "^\["; done
