"""How many of fms-acceleration's nvidia-smi peaks fall inside the ledger's device range.

Run from the repository root after `cargo build`: python3 docs/research/fms_smi.py
The queries are the measured set's fms rows (tests/data/measured.toml); the rows are fms_smi_rows.toml.
"""
import json, subprocess, tomllib

MODEL = {
    'mistralai/Mistral-7B-v0.1': 'model=mistral-7b', 'TheBloke/Mistral-7B-v0.1-GPTQ': 'model=mistral-7b',
    'mistralai/Mixtral-8x7B-Instruct-v0.1': 'model=mixtral-8x7b',
    'TheBloke/Mixtral-8x7B-Instruct-v0.1-GPTQ': 'model=mixtral-8x7b',
    'NousResearch/Llama-2-70b-hf': 'model=llama-2-70b', 'TheBloke/Llama-2-70B-GPTQ': 'model=llama-2-70b',
}
rows = tomllib.load(open('docs/research/fms_smi_rows.toml', 'rb'))['row']
inside = 0
for r in rows:
    g, fw = r['gpus'], r['framework']
    q = f"{MODEL[r['model']]}&seq=4096&batch={r['batch']}&gc=1&attn=flash&loss=hf_shift&gpu=a100-80g&gpus={g}"
    if g > 1:
        q += '&zero=3'
        if not r['method'].startswith('full'):
            q = q.replace('gc=1', 'gc=reentrant')
    if r['method'].startswith('full'):
        q += '&method=full&precision=bf16'
    elif fw == 'none':
        q += '&method=lora&precision=bf16&rank=16&targets=qkvo&lora_dropout=0.1'
    elif 'bnb' in fw:
        recipe = 'peft' if (fw == 'baseline-peft-bnb' and g == 1) else 'plain'
        q += f'&method=qlora&recipe={recipe}&rank=16&targets=qkvo&lora_dropout=0.1&precision=mixed'
    else:
        q += '&method=qlora&quant=gptq4&rank=16&targets=qkvo&lora_dropout=0.1&precision=mixed&recipe=plain'
    j = json.loads(subprocess.run(['./target/debug/vram-ledger', '--json', q], capture_output=True, text=True).stdout)
    smi = r['smi_mib'] * 2**20
    lo, hi = j['device_range']
    ok = lo <= smi <= hi
    inside += ok
    print(f"{r['id'][:60]:60s} smi {smi / 2**30:6.2f} GiB, device {j['device_bytes'] / 2**30:6.2f} "
          f"[{lo / 2**30:6.2f}, {hi / 2**30:6.2f}] {'inside' if ok else 'OUTSIDE'}")
print(inside, 'of', len(rows), 'inside the device range')
