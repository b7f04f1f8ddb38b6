import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from alloc import Alloc
GiB=2**30
def arch(name):
    A=dict(
     qwen3_1_7b=dict(h=2048,i=6144,L=28,nq=16,nkv=8,hd=128,V=151936,tied=True,qkn=True,bias=False,norms=2),
     qwen3_8b =dict(h=4096,i=12288,L=36,nq=32,nkv=8,hd=128,V=151936,tied=False,qkn=True,bias=False,norms=2),
     qwen3_14b=dict(h=5120,i=17408,L=40,nq=40,nkv=8,hd=128,V=151936,tied=False,qkn=True,bias=False,norms=2),
     qwen2_7b =dict(h=3584,i=18944,L=28,nq=28,nkv=4,hd=128,V=152064,tied=False,qkn=False,bias=True,norms=2),
     gemma2_2b=dict(h=2304,i=9216,L=26,nq=8,nkv=4,hd=256,V=256000,tied=True,qkn=False,bias=False,norms=4),
     llama32_1b=dict(h=2048,i=8192,L=16,nq=32,nkv=8,hd=64,V=128256,tied=True,qkn=False,bias=False,norms=2),
     llama3_8b=dict(h=4096,i=14336,L=32,nq=32,nkv=8,hd=128,V=128256,tied=False,qkn=False,bias=False,norms=2),
    )[name]
    return A
def tensors(a):
    """model-order list of (name, numel, quantized, shape(out,in))"""
    h,i,hd=a['h'],a['i'],a['hd']; T=[("model.embed_tokens.weight",a['V']*h,False,None)]
    for l in range(a['L']):
        p=f"model.layers.{l}."
        lin=[("self_attn.q_proj",a['nq']*hd,h),("self_attn.k_proj",a['nkv']*hd,h),("self_attn.v_proj",a['nkv']*hd,h),
             ("self_attn.o_proj",h,a['nq']*hd),("mlp.gate_proj",i,h),("mlp.up_proj",i,h),("mlp.down_proj",h,i)]
        for n,o,inn in lin:
            T.append((p+n+".weight",o*inn,True,(o,inn)))
            if a['bias'] and n in ("self_attn.q_proj","self_attn.k_proj","self_attn.v_proj"): T.append((p+n+".bias",o,False,None))
        if a['qkn']: T+= [(p+"self_attn.q_norm.weight",hd,False,None),(p+"self_attn.k_norm.weight",hd,False,None)]
        nn=["input_layernorm","post_attention_layernorm","pre_feedforward_layernorm","post_feedforward_layernorm"][:a['norms']]
        T+=[(p+x+".weight",h,False,None) for x in nn]
    T.append(("model.norm.weight",h,False,None))
    if not a['tied']: T.append(("lm_head.weight",a['V']*h,False,None))
    return T
def file_order(T, shard_bytes=4e9, elem=2):
    shards=[[]]; acc=0
    for t in T:
        b=t[1]*elem
        if acc+b>shard_bytes and shards[-1]: shards.append([]); acc=0
        shards[-1].append(t); acc+=b
    out=[]
    for s in shards: out+=sorted(s,key=lambda t:t[0])
    return out
def quantize(M,n,bnb_new=True):
    """bnb Params4bit._quantize after the 16-bit copy W exists; returns kept blocks"""
    keep=[]
    if bnb_new:   # 0.45+: absmax then out
        absmax=M.malloc(4*((n+63)//64)); out=M.malloc(n//2)
    else:
        absmax=M.malloc(4*((n+63)//64)); out=M.malloc(n//2)
    code=M.malloc(64); keep+= [out,code]
    off=M.malloc(4); keep.append(off)
    if bnb_new: tmp=M.malloc(4*((n+63)//64)); src=tmp
    else: src=absmax
    nb=(n+63)//64
    a2=M.malloc(4*((nb+255)//256)); q=M.malloc(nb); keep+=[a2,q]
    if bnb_new: M.release(tmp)
    M.release(absmax)
    return keep
def simulate(model, tf, post, cast=True, free_gib=None, ctx_gib=0.3, total_gib=None, prequant=False, r=32, verbose=False):
    a=arch(model); T=tensors(a); F=file_order(T)
    M=Alloc(capacity=None if total_gib is None else int((total_gib-ctx_gib)*GiB))
    S16=sum(t[1] for t in T)*2
    # ---- warmup
    warm=0
    if tf>=4.51:
        cnt=sum(t[1] for t in T)*2
        if a['tied'] and tf<4.54: cnt+=a['V']*a['h']*2      # tied lm_head counted again (4.51-4.53)
        if tf>=4.54 and not a['tied']: cnt-=a['V']*a['h']*2 # lm_head in _tied_weights_keys -> skipped
        free=(total_gib-ctx_gib)*GiB if total_gib else 1e15
        cap = 0.95*free if tf<4.52 else max(0,free-1.2*GiB)
        cnt=min(cnt,cap)
        warm=2*(int(cnt)//4)
        b=M.malloc(warm); M.release(b)
    params={}
    small_dyn=M.malloc(1024) if True else None  # cached 'dynamic' code
    prev=None
    for name,n,q,shape in F:
        if prequant and q:
            params[name]=[M.malloc(n//2),M.malloc((n+63)//64),M.malloc(4*((n//64+255)//256)),M.malloc(1024),M.malloc(64),M.malloc(4)]
            continue
        if tf>=4.51:
            if prev is not None: M.release(prev); prev=None
            A=M.malloc(2*n)                       # bf16 tensor on GPU (safe_open device= / .to(tensor_device))
            if cast: B=M.malloc(2*n); M.release(A); A=B   # .to(dtype=fp16)
            if q:
                W=M.malloc(2*n)                   # Params4bit(.to cpu).to(cuda): fresh 16-bit copy
                params[name]=quantize(M,n)
                M.release(W); prev=A              # `param` kept alive until next iteration
            else:
                params[name]=[A]
        else:   # <=4.50: tensors cast on CPU, GPU sees one copy
            if q:
                W=M.malloc(2*n); params[name]=quantize(M,n,bnb_new=False); M.release(W)
            else:
                params[name]=[M.malloc(2*n)]
    if prev is not None: M.release(prev)
    load_res=M.reserved; load_alloc=M.allocated
    # ---- post-load (trainer creation)
    if post in ("peft_upcast","trl_norm_only"):
        for name,n,q,shape in T:   # model.parameters() order ~ module order
            if q: continue
            if post=="trl_norm_only" and "norm" not in name: continue
            new=M.malloc(4*n); 
            for b in params[name]: M.release(b)
            params[name]=[new]
    lora=[]
    if post in ("peft_upcast","trl_norm_only","lora_only"):
        for name,n,q,shape in T:
            if q:
                o,i_=shape; lora.append(M.malloc(4*r*i_)); lora.append(M.malloc(4*o*r))
    if post=="peft_upcast":   # TRL peft_module_casting_to_bf16 (args.bf16 True): fp32 embed/lm_head -> bf16
        for name,n,q,shape in T:
            if name in ("model.embed_tokens.weight","lm_head.weight"):
                new=M.malloc(2*n)
                for b in params[name]: M.release(b)
                params[name]=[new]
    return dict(S16=S16/GiB, warm=warm/GiB, load_reserved=load_res/GiB, load_alloc=load_alloc/GiB,
                final_alloc=M.allocated/GiB, peak_alloc=M.peak_alloc/GiB, peak_reserved=M.peak_reserved/GiB)
if __name__=="__main__":
    def show(label,d): print(f"{label:55s} " + " ".join(f"{k}={v:.3f}" for k,v in d.items()))
    show("Qwen3-1.7B 4.57 T4 peft_upcast (obs 3.346)", simulate("qwen3_1_7b",4.57,"peft_upcast",total_gib=14.741))
    show("Qwen3-1.7B 4.56 T4 peft_upcast", simulate("qwen3_1_7b",4.56,"peft_upcast",total_gib=14.741))
    show("Qwen3-8B 4.57 A100-40 peft_upcast (obs 11.959)", simulate("qwen3_8b",4.57,"peft_upcast",total_gib=39.557))
    show("Qwen3-14B prequant 4.57 T4 trl_norm_only (obs 12.074)", simulate("qwen3_14b",4.57,"trl_norm_only",total_gib=14.741,prequant=True))
    show("Qwen3-14B prequant 4.57 T4 peft_upcast", simulate("qwen3_14b",4.57,"peft_upcast",total_gib=14.741,prequant=True))
